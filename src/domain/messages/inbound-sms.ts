import type { Db } from "@/db/client";
import { commit } from "@/db/outbox";
import * as contacts from "@/domain/contacts/contacts.repository";
import { liftNumber, suppressNumber } from "@/domain/sms-opt-out/suppressions.repository";
import { inboundStored, storeInbound } from "./messages.repository";
import { MAX_SMS_LENGTH } from "./messages.rules";

/** Keywords carriers and the CTIA treat as opting out of, and back into, a sender's texts. */
const OPT_OUT = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"]);
const OPT_IN = new Set(["START", "YES", "UNSTOP"]);

/** What a text asks of the agency's texts to its number: to stop, to start again, or nothing. */
function optOutKeyword(body: string): "stop" | "start" | undefined {
  const keyword = body.trim().toUpperCase();
  return OPT_OUT.has(keyword) ? "stop" : OPT_IN.has(keyword) ? "start" : undefined;
}

/**
 * An SMS a person sent to an agency's number (docs/decisions/real-providers.md): kept in the
 * conversation of the live contact with that phone, a new contact (source `sms`) when there is
 * none. An opt-out keyword (or its opposite) suppresses (or lifts) the sending number itself,
 * shown by every contact holding it (docs/decisions/sms-opt-out.md). `providerMessageId` makes
 * a redelivered text change nothing (not even a contact re-created after the first was
 * deleted). `receivedAt`, when the text reached us, dates it: a text applied late (its agency
 * was moving) keeps its place in the conversation. True when it was stored now.
 */
export async function receiveSms(db: Db, agencyId: string, input: { from: string; body: string; providerMessageId: string; receivedAt?: string }): Promise<boolean> {
  const body = input.body.slice(0, MAX_SMS_LENGTH) || "(empty message)";
  if (await inboundStored(db, agencyId, input.providerMessageId)) return false;
  let contact = await contacts.findLiveContact(db, agencyId, { phone: input.from });
  if (!contact) {
    try {
      contact = await contacts.createContact(db, agencyId, {
        firstName: "SMS",
        lastName: input.from,
        email: null,
        phone: input.from,
        tags: [],
        source: "sms",
        pathId: null,
        customFields: {},
        externalId: null,
      });
    } catch (error) {
      // Two texts from one new number at once: the other created the contact.
      contact = await contacts.findLiveContact(db, agencyId, { phone: input.from });
      if (!contact) throw error;
    }
  }
  // The keyword's effect is written in the message's own batch, only with a message stored now:
  // a text the provider sends again changes nothing, and a failed write leaves both undone for the retry.
  const { message, stored } = storeInbound(db, agencyId, { contactId: contact.id, body, providerMessageId: input.providerMessageId, createdAt: input.receivedAt });
  const keyword = optOutKeyword(body);
  const effect =
    keyword === "stop"
      ? suppressNumber(db, agencyId, input.from, { source: "keyword", messageId: message.id })
      : keyword === "start"
        ? liftNumber(db, agencyId, input.from, message.id)
        : [];
  const [inserted] = await commit(db, [...stored, ...effect]);
  return inserted.length > 0;
}

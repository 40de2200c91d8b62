import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts } from "@/db/schema";
import { ApiError, badRequest } from "@/lib/errors";
import { createContact, getLiveContact } from "@/routes/contacts/contacts.repository";
import { voiceMessages, type CreateCallInput } from "./voice-ai.schemas";

export interface CallContact {
  contactId: string | null;
  contactName: string | null;
}

const fullName = (c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`.trim();

const liveContactByPhone = (db: Db, agencyId: string, phone: string) =>
  db
    .select()
    .from(contacts)
    .where(and(eq(contacts.agencyId, agencyId), eq(contacts.phone, phone), isNull(contacts.deletedAt)))
    .get();

/** `contact_name` with two or more words gives a first name and a last name (the rest). */
function namesFrom(body: CreateCallInput): { firstName: string; lastName: string } | null {
  if (body.first_name && body.last_name) return { firstName: body.first_name, lastName: body.last_name };
  const words = body.contact_name?.split(/\s+/).filter(Boolean) ?? [];
  if (words.length < 2) return null;
  return { firstName: words[0]!, lastName: words.slice(1).join(" ") };
}

export type ContactPlan =
  | { kind: "ready"; contact: CallContact }
  | { kind: "create"; firstName: string; lastName: string; contactName: string | null };

/**
 * The contact a call is linked to, decided before anything is written:
 * - `contact_uuid`: that live contact of the agency (else 400 `Unknown contact_uuid`);
 * - otherwise the live contact that already has this phone number, if any (reused, never a 409);
 * - otherwise a new contact from `first_name` + `last_name` (or a two-word `contact_name`),
 *   with the call's phone and source `voice-ai` (created by `settleCallContact`);
 * - otherwise none: the call carries only `contact_name`.
 * `contact_name` wins as the name the agent uses; it defaults to the contact's full name.
 */
export async function planCallContact(db: Db, agencyId: string, body: CreateCallInput & { phone: string }): Promise<ContactPlan> {
  const givenName = body.contact_name ?? (body.first_name && body.last_name ? `${body.first_name} ${body.last_name}` : null);
  if (body.contact_uuid) {
    const contact = await getLiveContact(db, agencyId, body.contact_uuid);
    if (!contact) throw badRequest(voiceMessages.unknownContact);
    return { kind: "ready", contact: { contactId: contact.id, contactName: givenName ?? fullName(contact) } };
  }
  const existing = await liveContactByPhone(db, agencyId, body.phone);
  if (existing) return { kind: "ready", contact: { contactId: existing.id, contactName: givenName ?? fullName(existing) } };
  const names = namesFrom(body);
  if (!names) return { kind: "ready", contact: { contactId: null, contactName: givenName } };
  return { kind: "create", ...names, contactName: givenName };
}

/** Creates the planned contact; when a concurrent request created one with this phone first, uses that. */
export async function settleCallContact(db: Db, agencyId: string, phone: string, plan: ContactPlan): Promise<CallContact> {
  if (plan.kind === "ready") return plan.contact;
  try {
    const created = await createContact(db, agencyId, {
      firstName: plan.firstName,
      lastName: plan.lastName,
      email: null,
      phone,
      tags: [],
      source: "voice-ai",
      pathId: null,
      customFields: {},
    });
    return { contactId: created.id, contactName: plan.contactName ?? fullName(created) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "conflict") throw error;
    const winner = await liveContactByPhone(db, agencyId, phone);
    if (!winner) throw error;
    return { contactId: winner.id, contactName: plan.contactName ?? fullName(winner) };
  }
}

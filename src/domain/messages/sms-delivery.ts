import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import * as repo from "./messages.repository";
import type { SmsProvider, SmsSendResult } from "./sms-provider";
import { assertNotSuppressed } from "./sms-opt-out";

/**
 * Sends an outbound SMS. A suppressed number is refused before anything else (409 `sms_opt_out`,
 * nothing stored or sent: assertNotSuppressed). The message is then stored (`queued`) with its
 * `message.sent` event, so it is in the conversation whatever happens next, then handed to the
 * provider, and the provider's answer is recorded as `delivery_status`, with a `message.updated`
 * event. A provider that throws counts as `failed`; the partner still gets the message record and
 * can see the failure.
 */
export async function sendSms(
  db: Db,
  provider: SmsProvider,
  logger: Logger,
  agencyId: string,
  input: { contactId: string; to: string; from: string | null; body: string },
) {
  await assertNotSuppressed(db, agencyId, input.to);
  const message = await repo.createMessage(db, agencyId, {
    contactId: input.contactId,
    channel: "sms",
    direction: "outbound",
    body: input.body,
    deliveryStatus: "queued",
    read: true,
  });
  let result: SmsSendResult;
  try {
    result = await provider.send({ to: input.to, from: input.from, body: input.body, ref: { agencyId, messageId: message.id } });
  } catch (error) {
    result = { status: "failed", providerMessageId: null, error: error instanceof Error ? error.message : String(error) };
  }
  if (result.status === "failed") {
    logger.warn("sms delivery failed", { provider: provider.name, message_id: message.id, error: result.error });
  }
  return (await repo.recordDelivery(db, agencyId, message.id, result)).message ?? message;
}

import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import { sendSmsMessages, type SmsMessage } from "@/lib/queues/sms-message";
import * as repo from "./messages.repository";
import { assertNotSuppressed } from "./sms-opt-out";

export interface SendSmsDeps {
  db: Db;
  queue: Queue<SmsMessage>;
  logger: Logger;
}

/**
 * Sends an outbound SMS, the one way every caller does it: stored first, `queued`, with its
 * `message.sent` event, so it is in the conversation whatever happens next; then handed to the
 * `sms-sends` queue, whose consumer sends it through the SMS port with retries and never twice
 * (src/domain/messages/sms-attempt.ts). If the queue refuses the message, it stays stored and
 * due, and the cron's sweep enqueues it: nothing accepted is lost. A suppressed number is refused
 * first (409 `sms_opt_out`: assertNotSuppressed), so a refusal stores and sends nothing; the
 * consumer checks again before each attempt.
 */
export async function sendSms(deps: SendSmsDeps, agencyId: string, input: { contactId: string; to: string; body: string }) {
  await assertNotSuppressed(deps.db, agencyId, input.to);
  const message = await repo.createMessage(deps.db, agencyId, {
    contactId: input.contactId,
    channel: "sms",
    direction: "outbound",
    body: input.body,
    deliveryStatus: "queued",
    read: true,
    sendTo: input.to,
  });
  try {
    await sendSmsMessages(deps.queue, [{ id: message.id, agencyId }]);
  } catch (error) {
    deps.logger.error("enqueueing an sms failed; the sweep will send it", { message_id: message.id, error: (error as Error).message });
  }
  return message;
}

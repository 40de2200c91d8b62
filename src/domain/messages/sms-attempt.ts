import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import { LATE_ATTEMPT_GRACE_SECONDS, retryDelaySeconds, SEND_WINDOW_SECONDS, sendSmsMessages, type SmsMessage } from "@/lib/queues/sms-message";
import type { MessageRow } from "./messages.repository";
import { claimSendAttempt, providerIdsRecorded, recordProviderHas, recordSendFailed, scheduleNextAttempt } from "./sms-sends.repository";
import type { OutboundSms, RetryableFailure, SmsProvider } from "./sms-provider";
import { isSuppressed } from "@/domain/sms-opt-out/suppressions.repository";
import { SMS_OPTED_OUT_MESSAGE } from "./messages.rules";

export interface SmsAttemptDeps {
  db: Db;
  /** Where the next attempt's message goes after a retryable failure. */
  queue: Queue<SmsMessage>;
  provider: SmsProvider;
  logger: Logger;
  /** The agency's SMS sender number now (null when it has none). */
  senderOf: (agencyId: string) => Promise<string | null>;
  /** Milliseconds since the epoch; tests may pin it. */
  now?: number;
}

/** What one `send` queue message came to. */
export type AttemptOutcome =
  /** Not waiting, not due, or held by a running attempt: nothing to do. */
  | "not-due"
  /** The provider took it (this attempt, or an earlier one that a look-up or a delivery report found). */
  | "sent"
  | "found"
  /** Refused for good, or given up after an hour of retryable failures. */
  | "failed"
  | "given-up"
  | "retry-scheduled";

/**
 * One attempt to send a queued SMS (docs/decisions/real-providers.md, "Outbound SMS through a queue"):
 * 1. claim it (one conditional UPDATE: a duplicated or redelivered queue message, or a second
 *    consumer, finds it held and does nothing);
 * 2. if an earlier attempt may have reached the provider unanswered (a timeout, a dropped
 *    connection, a 5xx, a consumer that died mid-attempt), look it up there; found, it is
 *    recorded and not sent again;
 * 3. send; accepted is `sent` (the status callback later makes it `delivered`), a final refusal
 *    (a 4xx other than 429) is `failed` at once with the provider's reason in `delivery_error`;
 * 4. a retryable failure (429, 5xx, timeout, network) schedules the next attempt after the
 *    longer of our backoff and the provider's Retry-After, as long as it falls within an hour of
 *    the first attempt; after that the SMS is `failed`.
 * Each status change is written with its `message.updated` event.
 */
export async function attemptSms(deps: SmsAttemptDeps, ref: { agencyId: string; messageId: string }): Promise<AttemptOutcome> {
  const { db, provider } = deps;
  const now = deps.now ?? Date.now();
  const claimed = await claimSendAttempt(db, ref.agencyId, ref.messageId, now);
  if (!claimed) return "not-due";
  // A delivery report named the provider's message before its send's answer was recorded: the
  // provider has it.
  if (claimed.providerMessageId) {
    await recordProviderHas(db, claimed, { providerMessageId: claimed.providerMessageId, status: "sent", error: null });
    return "found";
  }
  const sms: OutboundSms = { to: claimed.toNumber ?? "", from: await deps.senderOf(ref.agencyId), body: claimed.body, ref };
  const deadline = Date.parse(claimed.sendFirstAttemptAt ?? new Date(now).toISOString()) + SEND_WINDOW_SECONDS * 1000;

  if (claimed.sendLookupNeeded) {
    const looked = await lookUp(deps, claimed, sms);
    if (looked === "found") return "found";
    if (looked !== "absent") return afterFailure(deps, claimed, sms, looked, { now, deadline, lookupNeeded: true });
  }
  if (now > deadline + LATE_ATTEMPT_GRACE_SECONDS * 1000) {
    await recordSendFailed(db, claimed, `Not sent: its retries ran out an hour after the first attempt (${claimed.sendAttempts - 1} attempts)`);
    return "given-up";
  }

  // The person may have texted STOP since the message was accepted: a suppressed number is
  // never texted, whatever was queued before (docs/decisions/sms-opt-out.md).
  if (await isSuppressed(db, claimed.agencyId, sms.to)) {
    await recordSendFailed(db, claimed, `Not sent: ${SMS_OPTED_OUT_MESSAGE}`);
    return "failed";
  }
  const result = await provider.send(sms);
  if (result.outcome === "accepted") {
    await recordProviderHas(db, claimed, result);
    return "sent";
  }
  if (result.outcome === "refused") {
    deps.logger.warn("sms refused by the provider", { provider: provider.name, message_id: claimed.id, error: result.error });
    await recordSendFailed(db, claimed, result.error);
    return "failed";
  }
  return afterFailure(deps, claimed, sms, result, { now, deadline, lookupNeeded: result.maybeSent });
}

/**
 * Looks the message up at the provider: "found" when it has one that an earlier attempt
 * created (recorded now), "absent" when it has none, or the failure to ask.
 */
async function lookUp(deps: SmsAttemptDeps, claimed: MessageRow, sms: OutboundSms): Promise<"found" | "absent" | RetryableFailure> {
  const result = await deps.provider.findSent(sms, claimed.sendFirstAttemptAt ?? claimed.createdAt);
  if (result.outcome === "retry") return result;
  // A text with the same body to the same person may be another of the agency's messages.
  const taken = await providerIdsRecorded(deps.db, claimed.agencyId, claimed.id, result.found.map((m) => m.providerMessageId));
  const mine = result.found.find((m) => !taken.has(m.providerMessageId));
  if (!mine) return "absent";
  deps.logger.info("sms found at the provider after a lost answer; not sent again", { message_id: claimed.id, provider_message_id: mine.providerMessageId });
  await recordProviderHas(deps.db, claimed, mine);
  return "found";
}

/**
 * After a retryable failure: the next attempt, after the longer of our backoff and the
 * provider's Retry-After, if it falls within the hour; otherwise the SMS is `failed`, after one
 * last look-up when this attempt's own request may have gone through.
 */
async function afterFailure(
  deps: SmsAttemptDeps,
  claimed: MessageRow,
  sms: OutboundSms,
  failure: RetryableFailure,
  { now, deadline, lookupNeeded }: { now: number; deadline: number; lookupNeeded: boolean },
): Promise<AttemptOutcome> {
  const { db, logger } = deps;
  const delaySeconds = Math.max(retryDelaySeconds(claimed.sendAttempts), failure.retryAfterSeconds ?? 0);
  const dueAt = now + delaySeconds * 1000;
  logger.warn("sms attempt failed", { message_id: claimed.id, attempt: claimed.sendAttempts, error: failure.error, retry_in: dueAt <= deadline ? delaySeconds : null });
  if (dueAt <= deadline) {
    if (await scheduleNextAttempt(db, claimed, dueAt, lookupNeeded)) {
      try {
        await sendSmsMessages(deps.queue, [{ id: claimed.id, agencyId: claimed.agencyId }], delaySeconds);
      } catch (error) {
        // The next attempt is stored: the sweep enqueues it once it is overdue.
        logger.error("enqueueing the next sms attempt failed; the sweep will send it", { message_id: claimed.id, error: (error as Error).message });
      }
    }
    return "retry-scheduled";
  }
  let unsure = lookupNeeded;
  if (lookupNeeded && failure.maybeSent) {
    const looked = await lookUp(deps, claimed, sms);
    if (looked === "found") return "found";
    unsure = looked !== "absent";
  }
  const attempts = `${claimed.sendAttempts} attempt${claimed.sendAttempts === 1 ? "" : "s"} in the hour after the first`;
  const error = unsure ? `${failure.error} (${attempts}; the provider may have received it)` : `${failure.error} (given up after ${attempts})`;
  await recordSendFailed(db, claimed, error);
  return "given-up";
}

import { sendInBatches } from "./send-in-batches";

/**
 * The messages of the `sms-sends` queue and the limits of sending an SMS, in one place
 * (docs/decisions/real-providers.md, "Outbound SMS through a queue"). A message carries only the
 * stored message's id and its agency (whose shard holds it): the row in `messages` is the truth,
 * so a stale, duplicated or redelivered queue message can never send on old data, and the claim
 * of each attempt (src/domain/messages/sms-sends.repository.ts) lets only one of them send.
 */
export interface SmsMessage {
  type: "send";
  message_id: string;
  agency_id: string;
}

export const SMS_QUEUE_NAME = "sms-sends";
export const SMS_DLQ_NAME = "sms-sends-dlq";

/** Retries stop this long after the first attempt: an SMS still unsent by then is `failed`. */
export const SEND_WINDOW_SECONDS = 3_600;

/**
 * An attempt that has not reported back this long after it was claimed is taken to have died
 * mid-way (its answer lost): well beyond the provider request's own limit (10 s per request, a
 * look-up and a send), so a slow attempt is never overtaken while it may still send.
 */
export const ATTEMPT_LEASE_SECONDS = 120;

/**
 * A queue message may arrive this much before the due time it was sent for (the queue's timers
 * and our clock need not agree to the millisecond) and still claim its attempt.
 */
export const EARLY_ARRIVAL_SECONDS = 5;

/**
 * An attempt scheduled within the window may start this long after it, when the queue delivers
 * it late or the sweep sends it again; later than that the SMS is given up instead of sent.
 */
export const LATE_ATTEMPT_GRACE_SECONDS = 600;

/** A send due this long without an attempt is enqueued again by the sweep (its queue message was lost). */
export const RESEND_AFTER_SECONDS = 120;

/** Sends handled per sweep step, so one run stays well inside the Worker's limits. */
export const SMS_SWEEP_LIMIT = 500;

/**
 * A send still `queued` this long after its first attempt (or its creation, when no attempt ever
 * started) is given up by the sweep: its consumer kept dying before it could finish. The window
 * plus an hour of grace, so an attempt the queue delivered late is never cut short.
 */
export const ABANDON_AFTER_SECONDS = SEND_WINDOW_SECONDS + 3_600;

/** Exponential backoff between attempts: 10 s, 20 s, 40 s, ... capped at 5 minutes (about 16 attempts in the hour). */
export const retryDelaySeconds = (attempt: number) => Math.min(10 * 2 ** Math.max(0, attempt - 1), 300);

/** Sends one `send` message per stored SMS, delayed when given (up to the queue's 24 h limit, far beyond our window). */
export const sendSmsMessages = (queue: Queue<SmsMessage>, messages: readonly { id: string; agencyId: string }[], delaySeconds = 0) =>
  sendInBatches(
    queue,
    messages.map((m) => ({
      body: { type: "send", message_id: m.id, agency_id: m.agencyId } satisfies SmsMessage,
      delaySeconds: Math.max(0, Math.ceil(delaySeconds)),
    })),
  );

/**
 * The messages of the `voice-calls` queue and the limits of call dispatch, in one place.
 * A message carries only the call id and its agency (whose shard holds the call): the row in
 * `voice_calls` is the truth, so a stale, duplicated or redelivered message can never act on
 * old data. Messages sent before shards have no `agency_id`; their calls are on the first shard.
 */
export type CallMessage =
  /** Dial the call if it is still `queued` (claimed with a conditional update). */
  | { type: "dial"; call_id: string; agency_id?: string }
  /** Ask the provider whether an `in-progress` call has ended. */
  | { type: "poll"; call_id: string; agency_id?: string };

export const CALL_DLQ_NAME = "voice-calls-dlq";

/**
 * Cloudflare Queues accept `delaySeconds` up to 24 hours; a larger value makes `send()`
 * throw. Calls due later stay `scheduled` and the cron enqueues them.
 * https://developers.cloudflare.com/queues/configuration/batching-retries/#delay-messages
 */
export const MAX_QUEUE_DELAY_SECONDS = 86_400;

/** Dial attempts before a call ends `failed` (`dial-failed`), never charged. */
export const MAX_DIAL_ATTEMPTS = 4;

/** Exponential backoff between dial attempts: 30 s, 60 s, 120 s, ... capped at 10 minutes. */
export const retryDelaySeconds = (attempt: number) => Math.min(30 * 2 ** Math.max(0, attempt - 1), 600);

/**
 * The longest any call may run (`voice.max_call_minutes` is at most 60). Each call is held to
 * its agency's setting, recorded when it is dialed; this bounds calls dialed before that.
 */
export const MAX_CALL_DURATION_SECONDS = 3_600;

/**
 * What we keep of a provider's text about a call: its `ended_reason` (a short code in the
 * provider's vocabulary) and its summary (a paragraph or two). Both are cut to these lengths
 * when stored, so the documented bounds hold whatever a provider answers.
 */
export const MAX_ENDED_REASON_LENGTH = 200;
export const MAX_CALL_SUMMARY_LENGTH = 10_000;

/** Slack after a call's maximum duration before the sweep closes a call that never reported an end. */
export const STUCK_GRACE_SECONDS = 600;

/** A `queued` call still not dialed this long after it fell due is closed (`dispatch-timed-out`). */
export const DISPATCH_TIMEOUT_SECONDS = 2_400;

/** A due `queued` call with no dial for this long is re-enqueued (its message was lost). */
export const REENQUEUE_AFTER_SECONDS = 300;

/** How often an `in-progress` call is polled at its provider. */
export const POLL_INTERVAL_SECONDS = 30;

/** The cron runs every minute: calls due before the next run are enqueued now, with their delay. */
export const CRON_LOOKAHEAD_SECONDS = 60;

/** Calls handled per sweep step, so one run stays well inside the Worker's limits. */
export const SWEEP_LIMIT = 500;

/** Reasons we set ourselves; provider reasons (Vapi's vocabulary) pass through unchanged. */
export const endedReasons = {
  dialFailed: "dial-failed",
  dispatchTimedOut: "dispatch-timed-out",
  exceededMaxDuration: "exceeded-max-duration",
} as const;

/** Whole seconds from `now` until `dueAt`, rounded up (never early), never negative. */
export function secondsUntil(dueAt: string | Date, now: number): number {
  return Math.max(0, Math.ceil((new Date(dueAt).getTime() - now) / 1000));
}

/**
 * The messages of the `webhook-deliveries` queue and the limits of delivery, in one place. A
 * message carries only the delivery id and its agency (whose shard holds the delivery): the row
 * in `webhook_deliveries` is the truth, so a stale or redelivered message can never deliver
 * twice (see the claim in src/domain/webhooks/deliveries.repository.ts). Messages sent before
 * shards have no `agency_id`.
 */
export interface WebhookMessage {
  type: "deliver";
  delivery_id: string;
  agency_id?: string;
}

export const WEBHOOK_QUEUE_NAME = "webhook-deliveries";
export const WEBHOOK_DLQ_NAME = "webhook-deliveries-dlq";

/** Seconds before each retry after a failed attempt (docs/decisions/events-and-webhooks.md): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then given up. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;

/** Attempts of one delivery: the first and one per retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;

/**
 * Attempts a consumer runs at once. A Worker has at most 6 connections open at a time and
 * queues the rest, and an attempt's 10-second limit starts with its fetch: more would let
 * attempts time out without having been sent.
 */
export const MAX_CONCURRENT_ATTEMPTS = 6;

/** A 2xx within this long is delivered; anything slower is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

/** A claimed attempt holds its delivery this long, so a crash mid-attempt frees it for the cron. */
export const ATTEMPT_LEASE_SECONDS = 60;

/** A due delivery whose message has not been consumed after this long is sent again (its message was lost). */
export const RESEND_AFTER_SECONDS = 120;

/** Events are kept this long. */
export const EVENT_RETENTION_MS = 30 * 86_400_000;

/** Rows handled per cron step, so one run stays well inside the Worker's limits. */
export const WEBHOOK_SWEEP_LIMIT = 500;

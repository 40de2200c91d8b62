import { isoAt } from "@/lib/time";
import type { events, webhookEndpoints } from "@/db/schema";
import { DISABLE_AFTER_MS, RETRY_SCHEDULE_SECONDS } from "@/lib/webhooks/webhook-message";

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** What one POST of a delivery came to. */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
  durationMs: number;
}

/** Whether a due delivery goes out: a disabled endpoint gets only a ping (the test of it); its other deliveries are dropped. */
export const sendsTo = (endpoint: Pick<EndpointRow, "status">, event: Pick<typeof events.$inferSelect, "type">) =>
  endpoint.status === "enabled" || event.type === "ping";

/** What an attempt leads to: the delivery's next attempt (or none), and the endpoint's run of failures. */
export interface AfterAttempt {
  /** Seconds until the next attempt; undefined when delivered or given up. */
  retryIn: number | undefined;
  nextAttemptAt: string | null;
  status: "delivered" | "pending" | "failed";
  failingSince: string | null;
  /** The endpoint is disabled for failing (and the delivery given up). */
  disable: boolean;
}

/**
 * The attempt numbered `attempt`, with `delivered` its result, at `now`: a failure schedules the
 * next attempt (the schedule of docs/decisions/events-and-webhooks.md), or gives up after the
 * last; an endpoint whose every attempt has failed for 5 days is disabled.
 */
export function afterAttempt(attempt: number, endpoint: Pick<EndpointRow, "status" | "failingSince">, delivered: boolean, now: number): AfterAttempt {
  const retryIn = delivered ? undefined : RETRY_SCHEDULE_SECONDS[attempt - 1];
  const nextAttemptAt = retryIn === undefined ? null : isoAt(now + retryIn * 1000);
  const status = delivered ? "delivered" : nextAttemptAt ? "pending" : "failed";
  // The endpoint's run of failures: it starts at the first failure and ends at a success; when
  // it has lasted 5 days, the endpoint is disabled.
  const failingSince = delivered ? null : (endpoint.failingSince ?? isoAt(now));
  // Only an endpoint that is on can be turned off for failing (a ping may go to a disabled one).
  const disable = !delivered && endpoint.status === "enabled" && Date.parse(failingSince!) <= now - DISABLE_AFTER_MS;
  return { retryIn, nextAttemptAt, status, failingSince, disable };
}

import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import { toPublicEvent } from "@/domain/event-feed/events.repository";
import { sendDeliveries } from "@/domain/webhooks/publish";
import { claimDueDelivery, dropClaimedDelivery } from "@/domain/webhooks/deliveries.repository";
import { recordAttempt } from "@/domain/webhooks/attempts.repository";
import { afterAttempt, sendsTo, type AttemptResult } from "@/domain/webhooks/attempt-outcome";
import { signedHeaders } from "@/domain/webhooks/signed-headers";
import { DELIVERY_TIMEOUT_MS, type WebhookMessage } from "@/lib/webhooks/webhook-message";

export interface DeliverDeps {
  db: Db;
  queue: Queue<WebhookMessage>;
  logger: Logger;
}

export type DeliverOutcome = "delivered" | "retry-scheduled" | "given-up" | "endpoint-gone" | "not-due";

/** One POST: a 2xx within the time limit is delivered; a redirect is not followed and counts as a failure. */
async function post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
  const started = Date.now();
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    // The body is not used, but must be read (or canceled) to free the connection.
    await response.body?.cancel();
    const delivered = response.status >= 200 && response.status < 300;
    const error = delivered ? null : response.status >= 300 && response.status < 400 ? `redirect ${response.status} not followed` : `HTTP ${response.status}`;
    return { statusCode: response.status, error, delivered, durationMs: Date.now() - started };
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      statusCode: null,
      error: timedOut ? `no response within ${DELIVERY_TIMEOUT_MS / 1000} s` : `network error: ${(error as Error).message}`.slice(0, 300),
      delivered: false,
      durationMs: Date.now() - started,
    };
  }
}

/**
 * A `deliver` message: claim the delivery, sign and POST its event, record the attempt. A
 * failure schedules the next attempt (the schedule of docs/decisions/events-and-webhooks.md)
 * with a delayed message, or gives up after the last; an endpoint whose every attempt has
 * failed for 5 days is disabled. Deliveries of a deleted or disabled endpoint are dropped when
 * they fall due.
 */
export async function deliver(deps: DeliverDeps, deliveryId: string): Promise<DeliverOutcome> {
  const { db } = deps;
  const nowMs = Date.now();
  const claimed = await claimDueDelivery(db, deliveryId, nowMs);
  if (!claimed) return "not-due";
  const { delivery, endpoint, event } = claimed;
  if (!endpoint || !event || !sendsTo(endpoint, event)) {
    await dropClaimedDelivery(db, delivery, nowMs);
    return "endpoint-gone";
  }

  const body = JSON.stringify(toPublicEvent(event));
  const result = await post(endpoint.url, await signedHeaders(endpoint, event.id, body, nowMs), body);

  const next = afterAttempt(delivery.attempts, endpoint, result.delivered, nowMs);
  await recordAttempt(db, { delivery, endpoint, event, result, next }, nowMs);
  if (next.disable) {
    deps.logger.warn("webhook endpoint disabled after 5 days of failures", { endpoint_id: endpoint.id });
    return "given-up";
  }
  if (result.delivered) return "delivered";
  if (!next.nextAttemptAt) return "given-up";
  await sendDeliveries(deps.queue, [delivery], next.retryIn);
  return "retry-scheduled";
}

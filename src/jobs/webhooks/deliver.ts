import { and, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import type { Logger } from "@/lib/logger";
import { newId } from "@/lib/ids";
import { toPublicEvent } from "@/domain/event-feed/events.repository";
import { signatureHeader } from "@/lib/webhooks/signature";
import { sendDeliveries } from "@/domain/webhooks/publish";
import {
  ATTEMPT_LEASE_SECONDS,
  DELIVERY_TIMEOUT_MS,
  DISABLE_AFTER_MS,
  MAX_ATTEMPTS,
  RETRY_SCHEDULE_SECONDS,
  type WebhookMessage,
} from "@/lib/webhooks/webhook-message";
import { commit } from "@/db/outbox";

export interface DeliverDeps {
  db: Db;
  queue: Queue<WebhookMessage>;
  logger: Logger;
}

export type DeliverOutcome = "delivered" | "retry-scheduled" | "given-up" | "endpoint-gone" | "not-due";

const USER_AGENT = "PartnerAPI-Webhooks/2.0 (+https://www.standardwebhooks.com)";

/**
 * The claim: a pending delivery that is due gets its attempt number and a short lease (its next
 * attempt moves past the attempt's time limit), in one conditional UPDATE. A duplicate or
 * redelivered message finds it leased, delivered or given up, and does nothing; a consumer
 * that crashes mid-attempt leaves the lease to expire, and the cron sends the delivery again.
 */
const claim = (db: Db, deliveryId: string, now: number) =>
  db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: isoAt(now + ATTEMPT_LEASE_SECONDS * 1000), updatedAt: isoAt(now) })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.status, "pending"),
        lt(webhookDeliveries.attempts, MAX_ATTEMPTS),
        or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, isoAt(now))),
      ),
    )
    .returning();

interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
  durationMs: number;
}

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
  const now = isoAt(nowMs);
  const [claimed, endpoints, found] = await commit(db, [
    claim(db, deliveryId, nowMs),
    db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, sql`(SELECT ${webhookDeliveries.endpointId} FROM ${webhookDeliveries} WHERE ${webhookDeliveries.id} = ${deliveryId})`)),
    db
      .select()
      .from(events)
      .where(eq(events.id, sql`(SELECT ${webhookDeliveries.eventId} FROM ${webhookDeliveries} WHERE ${webhookDeliveries.id} = ${deliveryId})`)),
  ]);
  const delivery = claimed[0];
  if (!delivery) return "not-due";
  const endpoint = endpoints[0];
  const event = found[0];
  const isPing = event?.type === "ping";
  if (!endpoint || !event || (endpoint.status !== "enabled" && !isPing)) {
    await db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, updatedAt: now })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts)));
    return "endpoint-gone";
  }

  const body = JSON.stringify(toPublicEvent(event));
  const timestamp = Math.floor(nowMs / 1000);
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) secrets.push(endpoint.previousSecret);
  const result = await post(
    endpoint.url,
    {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "webhook-id": event.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signatureHeader(secrets, event.id, timestamp, body),
    },
    body,
  );

  const retryIn = result.delivered ? undefined : RETRY_SCHEDULE_SECONDS[delivery.attempts - 1];
  const nextAttemptAt = retryIn === undefined ? null : isoAt(nowMs + retryIn * 1000);
  const status = result.delivered ? "delivered" : nextAttemptAt ? "pending" : "failed";
  // The endpoint's run of failures: it starts at the first failure and ends at a success; when
  // it has lasted 5 days, the endpoint is disabled.
  const failingSince = result.delivered ? null : (endpoint.failingSince ?? now);
  // Only an endpoint that is on can be turned off for failing (a ping may go to a disabled one).
  const disable = !result.delivered && endpoint.status === "enabled" && Date.parse(failingSince!) <= nowMs - DISABLE_AFTER_MS;
  await commit(db, [
    db.insert(webhookAttempts).values({
      id: newId(),
      agencyId: delivery.agencyId,
      endpointId: endpoint.id,
      deliveryId: delivery.id,
      eventId: event.id,
      eventType: event.type,
      attempt: delivery.attempts,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      delivered: result.delivered,
      attemptedAt: now,
      nextAttemptAt: disable ? null : nextAttemptAt,
    }),
    db
      .update(webhookDeliveries)
      .set({ status: disable ? "failed" : status, nextAttemptAt: disable ? null : nextAttemptAt, enqueuedAt: nextAttemptAt ? now : null, updatedAt: now })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts))),
    db
      .update(webhookEndpoints)
      .set(
        disable
          ? { failingSince, status: "disabled", disabledReason: "failing", updatedAt: now }
          : { failingSince: result.delivered ? null : sql`coalesce(${webhookEndpoints.failingSince}, ${now})` },
      )
      .where(eq(webhookEndpoints.id, endpoint.id)),
  ]);
  if (disable) {
    deps.logger.warn("webhook endpoint disabled after 5 days of failures", { endpoint_id: endpoint.id });
    return "given-up";
  }
  if (result.delivered) return "delivered";
  if (!nextAttemptAt) return "given-up";
  await sendDeliveries(deps.queue, [delivery], retryIn);
  return "retry-scheduled";
}

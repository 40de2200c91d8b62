import { and, eq, sql } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, type events } from "@/db/schema";
import { newId } from "@/lib/ids";
import { commit } from "@/db/outbox";
import type { DeliveryRow } from "./deliveries.repository";
import type { AfterAttempt, AttemptResult } from "./attempt-outcome";

/**
 * Records an attempt of a claimed delivery and what it leads to (see afterAttempt), in one
 * batch: the attempt, the delivery's next attempt or its end (unless another attempt claimed it
 * since), and the endpoint's run of failures, or its disabling.
 */
export function recordAttempt(
  db: Db,
  attempt: {
    delivery: Pick<DeliveryRow, "id" | "agencyId" | "attempts">;
    endpoint: { id: string };
    event: Pick<typeof events.$inferSelect, "id" | "type">;
    result: AttemptResult;
    next: AfterAttempt;
  },
  now: number,
) {
  const { delivery, endpoint, event, result, next } = attempt;
  const { nextAttemptAt, status, failingSince, disable } = next;
  const at = isoAt(now);
  return commit(db, [
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
      attemptedAt: at,
      nextAttemptAt: disable ? null : nextAttemptAt,
    }),
    db
      .update(webhookDeliveries)
      .set({ status: disable ? "failed" : status, nextAttemptAt: disable ? null : nextAttemptAt, enqueuedAt: nextAttemptAt ? at : null, updatedAt: at })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts))),
    db
      .update(webhookEndpoints)
      .set(
        disable
          ? { failingSince, status: "disabled", disabledReason: "failing", updatedAt: at }
          : { failingSince: result.delivered ? null : sql`coalesce(${webhookEndpoints.failingSince}, ${at})` },
      )
      .where(eq(webhookEndpoints.id, endpoint.id)),
  ]);
}

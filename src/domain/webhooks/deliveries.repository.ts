import { and, asc, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { events, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { ATTEMPT_LEASE_SECONDS, MAX_ATTEMPTS, RESEND_AFTER_SECONDS, WEBHOOK_SWEEP_LIMIT } from "@/lib/webhooks/webhook-message";
import { commit } from "@/db/outbox";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

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

/**
 * Claims a delivery (see claim) and reads its endpoint and its event in the same batch. Undefined
 * when the delivery is not due (or not pending); the endpoint or the event is undefined when it
 * is gone.
 */
export async function claimDueDelivery(db: Db, deliveryId: string, now: number) {
  const [claimed, endpoints, found] = await commit(db, [
    claim(db, deliveryId, now),
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
  if (!delivery) return undefined;
  return { delivery, endpoint: endpoints[0], event: found[0] };
}

/** Gives up a claimed delivery that has nowhere to go, unless another attempt claimed it since. */
export const dropClaimedDelivery = (db: Db, delivery: Pick<DeliveryRow, "id" | "attempts">, now: number) =>
  db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, updatedAt: isoAt(now) })
    .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts)));

/**
 * Gives up the pending deliveries among `where` whose attempts are all used up (their consumer
 * kept crashing, so none completed): they are never sent again. Returns them.
 */
const giveUpExhausted = (db: Db, now: number, where: SQL) =>
  db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, updatedAt: isoAt(now) })
    .where(and(where, eq(webhookDeliveries.status, "pending"), gte(webhookDeliveries.attempts, MAX_ATTEMPTS)))
    .returning({ id: webhookDeliveries.id });

/** Gives up one delivery if its attempts are all used up (see giveUpExhausted). */
export const giveUpExhaustedDelivery = (db: Db, now: number, deliveryId: string) => giveUpExhausted(db, now, eq(webhookDeliveries.id, deliveryId));

/** Rows of an agency that is moving are left to the sweep of its new shard. */
const movable = () => notFrozen(webhookDeliveries.agencyId);

/** Gives up the exhausted deliveries (see giveUpExhausted) whose last lease has run out. */
export const giveUpExhaustedDeliveries = (db: Db, now: number) =>
  giveUpExhausted(db, now, and(lte(webhookDeliveries.nextAttemptAt, isoAt(now)), movable())!);

/**
 * Marks enqueued, and returns to send again, the deliveries that are due but whose message never
 * arrived: pending, due for a while, and not sent for a while. Marked first, conditionally, so
 * two sweeps do not both send one. At most WEBHOOK_SWEEP_LIMIT, longest due first.
 */
export function claimLostDeliveries(db: Db, now: number) {
  const staleBefore = isoAt(now - RESEND_AFTER_SECONDS * 1000);
  const lost = and(
    movable(),
    eq(webhookDeliveries.status, "pending"),
    lte(webhookDeliveries.nextAttemptAt, staleBefore),
    or(isNull(webhookDeliveries.enqueuedAt), lte(webhookDeliveries.enqueuedAt, staleBefore)),
  );
  return db
    .update(webhookDeliveries)
    .set({ enqueuedAt: isoAt(now) })
    .where(
      and(
        lost,
        inArray(
          webhookDeliveries.id,
          db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(lost).orderBy(asc(webhookDeliveries.nextAttemptAt)).limit(WEBHOOK_SWEEP_LIMIT),
        ),
      ),
    )
    .returning({ id: webhookDeliveries.id, agencyId: webhookDeliveries.agencyId });
}

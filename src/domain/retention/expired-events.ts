import { and, asc, inArray, lt } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { events, webhookAttempts, webhookDeliveries } from "@/db/schema";
import { EVENT_RETENTION_MS, WEBHOOK_SWEEP_LIMIT } from "@/lib/webhooks/webhook-message";
import { commit } from "@/db/outbox";

/**
 * Deletes events older than 30 days, with their deliveries and attempts, in one batch; events of
 * an agency that is moving are left to the sweep of its new shard. Returns how many events went.
 */
export async function pruneExpiredEvents(db: Db, now: number) {
  // Oldest first, a bounded slice per run; the event rows go last, as the slice is read from them.
  const expired = () =>
    db
      .select({ id: events.id })
      .from(events)
      .where(and(lt(events.createdAt, isoAt(now - EVENT_RETENTION_MS)), notFrozen(events.agencyId)))
      .orderBy(asc(events.createdAt))
      .limit(WEBHOOK_SWEEP_LIMIT);
  const [, , pruned] = await commit(db, [
    db.delete(webhookAttempts).where(inArray(webhookAttempts.eventId, expired())),
    db.delete(webhookDeliveries).where(inArray(webhookDeliveries.eventId, expired())),
    db.delete(events).where(inArray(events.id, expired())).returning({ id: events.id }),
  ]);
  return pruned.length;
}

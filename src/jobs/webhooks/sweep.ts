import { and, asc, eq, gte, inArray, isNull, lt, lte, or, type SQL } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { events, webhookAttempts, webhookDeliveries } from "@/db/schema";
import { sendDeliveries } from "@/domain/webhooks/publish";
import { EVENT_RETENTION_MS, MAX_ATTEMPTS, RESEND_AFTER_SECONDS, WEBHOOK_SWEEP_LIMIT, type WebhookMessage } from "@/lib/webhooks/webhook-message";
import { commit } from "@/db/outbox";

export interface WebhookSweepReport {
  resent: number;
  pruned: number;
}

/**
 * Gives up the pending deliveries among `where` whose attempts are all used up (their consumer
 * kept crashing, so none completed): they are never sent again. Returns them.
 */
export const giveUpExhausted = (db: Db, now: number, where: SQL) =>
  db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, updatedAt: isoAt(now) })
    .where(and(where, eq(webhookDeliveries.status, "pending"), gte(webhookDeliveries.attempts, MAX_ATTEMPTS)))
    .returning({ id: webhookDeliveries.id });

/**
 * The every-minute webhook sweep, with `now` the cron's scheduled time:
 * 1. sends again the deliveries that are due but whose message never arrived (a publish that
 *    failed after the change committed, a message lost by a `wrangler dev` reload, a consumer
 *    that crashed mid-attempt): pending, due for a while, and not sent for a while;
 * 2. deletes events older than 30 days, with their deliveries and attempts.
 * The re-send marks the rows first, conditionally, so two sweeps do not both send a delivery,
 * and a duplicate message is harmless anyway (the claim in deliver.ts).
 */
export async function sweepWebhooks(db: Db, queue: Queue<WebhookMessage>, now: number): Promise<WebhookSweepReport> {
  const staleBefore = isoAt(now - RESEND_AFTER_SECONDS * 1000);
  // A delivery whose every attempt was claimed but none completed (its consumer kept crashing)
  // is given up once the last lease has run out, rather than sent for ever.
  // Rows of an agency that is moving are left to the sweep of its new shard.
  const movable = notFrozen(webhookDeliveries.agencyId);
  await giveUpExhausted(db, now, and(lte(webhookDeliveries.nextAttemptAt, isoAt(now)), movable)!);
  const lost = and(
    movable,
    eq(webhookDeliveries.status, "pending"),
    lte(webhookDeliveries.nextAttemptAt, staleBefore),
    or(isNull(webhookDeliveries.enqueuedAt), lte(webhookDeliveries.enqueuedAt, staleBefore)),
  );
  const resent = await db
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
  if (resent.length > 0) await sendDeliveries(queue, resent);

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
  return { resent: resent.length, pruned: pruned.length };
}

import type { Db } from "@/db/client";
import { sendDeliveries } from "@/domain/webhooks/publish";
import { claimLostDeliveries, giveUpExhaustedDeliveries } from "@/domain/webhooks/deliveries.repository";
import { pruneExpiredEvents } from "@/domain/retention/expired-events";
import type { WebhookMessage } from "@/lib/webhooks/webhook-message";

export interface WebhookSweepReport {
  resent: number;
  pruned: number;
}

/**
 * The every-minute webhook sweep, with `now` the cron's scheduled time:
 * 1. sends again the deliveries that are due but whose message never arrived (a publish that
 *    failed after the change committed, a message lost by a `wrangler dev` reload, a consumer
 *    that crashed mid-attempt): pending, due for a while, and not sent for a while;
 * 2. deletes events older than 30 days, with their deliveries and attempts.
 * The re-send marks the rows first, conditionally, so two sweeps do not both send a delivery,
 * and a duplicate message is harmless anyway (the claim in src/domain/webhooks/deliveries.repository.ts).
 */
export async function sweepWebhooks(db: Db, queue: Queue<WebhookMessage>, now: number): Promise<WebhookSweepReport> {
  // A delivery whose every attempt was claimed but none completed (its consumer kept crashing)
  // is given up once the last lease has run out, rather than sent for ever.
  await giveUpExhaustedDeliveries(db, now);
  const resent = await claimLostDeliveries(db, now);
  if (resent.length > 0) await sendDeliveries(queue, resent);

  const pruned = await pruneExpiredEvents(db, now);
  return { resent: resent.length, pruned };
}

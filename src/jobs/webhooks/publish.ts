import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { nowIso } from "@/lib/time";
import { MAX_SEND_BATCH, type WebhookMessage } from "./webhook-message";

/** D1 binds at most 100 parameters per statement. */
const ID_CHUNK = 90;

/** Sends one `deliver` message per delivery (delayed when given), in batches the queue accepts. */
export async function sendDeliveries(queue: Queue<WebhookMessage>, ids: readonly string[], delaySeconds = 0) {
  for (let i = 0; i < ids.length; i += MAX_SEND_BATCH) {
    await queue.sendBatch(
      ids.slice(i, i + MAX_SEND_BATCH).map((id) => ({ body: { type: "deliver", delivery_id: id } satisfies WebhookMessage, delaySeconds })),
    );
  }
}

/**
 * After a change committed with its events: sends the first attempt of each of their
 * deliveries (created by the `events_fan_out` trigger in the change's own transaction). Marks
 * them enqueued first, conditionally, so two publishers never both send one. A send that fails
 * leaves them enqueued at a time the cron treats as lost, so it re-sends them: nothing written
 * is lost, at worst delayed by a couple of minutes.
 */
export async function publishEvents(db: Db, queue: Queue<WebhookMessage>, eventIds: readonly string[]) {
  const now = nowIso();
  const claimed: string[] = [];
  for (let i = 0; i < eventIds.length; i += ID_CHUNK) {
    const unsent = and(
      inArray(webhookDeliveries.eventId, eventIds.slice(i, i + ID_CHUNK)),
      eq(webhookDeliveries.status, "pending"),
      isNull(webhookDeliveries.enqueuedAt),
    );
    // Most agencies have no endpoint, so most events have no delivery: look before writing.
    const found = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(unsent);
    if (found.length === 0) continue;
    const rows = await db
      .update(webhookDeliveries)
      .set({ enqueuedAt: now })
      .where(and(unsent, inArray(webhookDeliveries.id, found.map((r) => r.id))))
      .returning({ id: webhookDeliveries.id });
    claimed.push(...rows.map((r) => r.id));
  }
  if (claimed.length > 0) await sendDeliveries(queue, claimed);
  return claimed.length;
}

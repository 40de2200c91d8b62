import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { eventsWrittenBy } from "@/db/outbox";
import type { Logger } from "@/lib/logger";
import { nowIso } from "@/lib/time";
import { sendInBatches } from "@/lib/queues/send-in-batches";
import type { WebhookMessage } from "@/lib/webhooks/webhook-message";

/** D1 binds at most 100 parameters per statement. */
const ID_CHUNK = 90;

/** A delivery to send, and the agency whose shard holds it. */
export interface DeliveryRef {
  id: string;
  agencyId: string;
}

/** Sends one `deliver` message per delivery (delayed when given). */
export const sendDeliveries = (queue: Queue<WebhookMessage>, deliveries: readonly DeliveryRef[], delaySeconds = 0) =>
  sendInBatches(
    queue,
    deliveries.map((d) => ({ body: { type: "deliver", delivery_id: d.id, agency_id: d.agencyId } satisfies WebhookMessage, delaySeconds })),
  );

/**
 * After a change committed with its events: sends the first attempt of each of their
 * deliveries (created by the `events_fan_out` trigger in the change's own transaction). Marks
 * them enqueued first, conditionally, so two publishers never both send one. A send that fails
 * leaves them enqueued at a time the cron treats as lost, so it re-sends them: nothing written
 * is lost, at worst delayed by a couple of minutes.
 */
export async function publishEvents(db: Db, queue: Queue<WebhookMessage>, eventIds: readonly string[]) {
  const now = nowIso();
  const claimed: DeliveryRef[] = [];
  for (let i = 0; i < eventIds.length; i += ID_CHUNK) {
    const rows = await db
      .update(webhookDeliveries)
      .set({ enqueuedAt: now })
      .where(
        and(
          inArray(webhookDeliveries.eventId, eventIds.slice(i, i + ID_CHUNK)),
          eq(webhookDeliveries.status, "pending"),
          isNull(webhookDeliveries.enqueuedAt),
        ),
      )
      .returning({ id: webhookDeliveries.id, agencyId: webhookDeliveries.agencyId });
    claimed.push(...rows);
  }
  if (claimed.length > 0) await sendDeliveries(queue, claimed);
  return claimed.length;
}

/**
 * Publishes the events `db` wrote that have deliveries (src/domain/events/events.ts notes them), once
 * their change committed: after a request's response, or at the end of a job. A failure is
 * only logged: the deliveries are stored, and the webhook cron sends those whose first message
 * never went out. Undefined when `db` wrote no such event, so a request that wrote none has
 * nothing to keep its isolate alive for.
 */
export function publishWritten(db: Db, queue: Queue<WebhookMessage>, logger: Logger): Promise<void> | undefined {
  const written = eventsWrittenBy(db);
  if (written.length === 0) return undefined;
  return publishEvents(db, queue, written).then(
    () => undefined,
    (error: unknown) => logger.error("publishing events failed; the webhook cron will send their deliveries", { error: (error as Error).message }),
  );
}

import { and, eq } from "drizzle-orm";
import { createDb } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import type { Env } from "@/env";
import { createLogger } from "@/lib/logger";
import { nowIso } from "@/lib/time";
import { deliver } from "./deliver";
import { publishEvents } from "./publish";
import { WEBHOOK_DLQ_NAME, type WebhookMessage } from "./webhook-message";
import { eventsWrittenBy } from "@/lib/events";

const isWebhookMessage = (body: unknown): body is WebhookMessage =>
  typeof body === "object" && body !== null && (body as WebhookMessage).type === "deliver" && typeof (body as WebhookMessage).delivery_id === "string";

/** Delivery crashes are retried by the queue with this backoff before the message is dead-lettered. */
const crashRetrySeconds = (attempts: number) => Math.min(10 * 2 ** Math.max(0, attempts - 1), 300);

/**
 * The `webhook-deliveries` consumer (and its dead-letter queue). Each message is one delivery
 * attempt; messages are acked one by one, so a slow endpoint never redelivers the others. An
 * unexpected error (D1 unavailable, a bug) retries the message; after the queue's max_retries
 * it lands in `webhook-deliveries-dlq`, where the delivery is given up.
 */
export async function handleWebhookBatch(batch: MessageBatch<unknown>, env: Env, options: { now?: number } = {}): Promise<void> {
  const logger = createLogger({ job: "webhook-deliveries", queue: batch.queue }, env.LOG_LEVEL);
  const db = createDb(env.DB);

  if (batch.queue === WEBHOOK_DLQ_NAME) {
    for (const message of batch.messages) {
      if (isWebhookMessage(message.body)) {
        await db
          .update(webhookDeliveries)
          .set({ status: "failed", nextAttemptAt: null, updatedAt: nowIso() })
          .where(and(eq(webhookDeliveries.id, message.body.delivery_id), eq(webhookDeliveries.status, "pending")));
        logger.error("webhook delivery dead-lettered; given up", { delivery_id: message.body.delivery_id });
      }
      message.ack();
    }
    return;
  }

  // Deliveries run concurrently: one slow endpoint (up to 10 s) does not hold up the others.
  await Promise.all(
    batch.messages.map(async (message) => {
      if (!isWebhookMessage(message.body)) {
        logger.warn("dropping a malformed webhook-deliveries message", { message_id: message.id });
        message.ack();
        return;
      }
      try {
        const outcome = await deliver({ db, queue: env.WEBHOOK_QUEUE, logger, now: options.now }, message.body.delivery_id);
        logger.info("webhook delivery", { delivery_id: message.body.delivery_id, attempts: message.attempts, outcome });
        message.ack();
      } catch (error) {
        logger.error("webhook delivery crashed", { delivery_id: message.body.delivery_id, error: (error as Error).message });
        message.retry({ delaySeconds: crashRetrySeconds(message.attempts) });
      }
    }),
  );
}

/** Jobs that write events (call dispatch, the sweep) publish them the way a request does. */
export async function publishJobEvents(db: ReturnType<typeof createDb>, env: Env) {
  const written = eventsWrittenBy(db);
  if (written.length > 0) await publishEvents(db, env.WEBHOOK_QUEUE, written);
}

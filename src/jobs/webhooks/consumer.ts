import { AgencyDatabases } from "@/db/shards";
import { forEachLimited } from "@/lib/for-each-limited";
import type { Env } from "@/env";
import { createLogger } from "@/lib/logger";
import { deliver } from "./deliver";
import { giveUpExhaustedDelivery } from "@/domain/webhooks/deliveries.repository";
import { MAX_CONCURRENT_ATTEMPTS, WEBHOOK_DLQ_NAME, WEBHOOK_QUEUE_NAME, type WebhookMessage } from "@/lib/webhooks/webhook-message";

const isWebhookMessage = (body: unknown): body is WebhookMessage =>
  typeof body === "object" &&
  body !== null &&
  (body as WebhookMessage).type === "deliver" &&
  typeof (body as WebhookMessage).delivery_id === "string" &&
  ["string", "undefined"].includes(typeof (body as WebhookMessage).agency_id);

/** Delivery crashes are retried by the queue with this backoff before the message is dead-lettered. */
const crashRetrySeconds = (attempts: number) => Math.min(10 * 2 ** Math.max(0, attempts - 1), 300);

/**
 * The `webhook-deliveries` consumer (and its dead-letter queue). Each message is one delivery
 * attempt; messages are acked one by one, so a slow endpoint never redelivers the others. An
 * unexpected error (D1 unavailable, a bug) retries the message; after the queue's max_retries
 * it lands in `webhook-deliveries-dlq`, where the delivery is given up.
 */
export async function handleWebhookBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const logger = createLogger({ job: "webhook-deliveries", queue: batch.queue }, env.LOG_LEVEL);
  // Each delivery is read on its agency's shard.
  const databases = new AgencyDatabases(env);

  if (batch.queue === WEBHOOK_DLQ_NAME) {
    for (const message of batch.messages) {
      // A crash (D1 unavailable, a bug) is not the endpoint's failure: the delivery stays pending
      // and the cron sends it again, until its attempts are used up (then it is given up here).
      const db = isWebhookMessage(message.body) ? await databases.of(message.body.agency_id) : undefined;
      if (db && isWebhookMessage(message.body)) {
        const given = await giveUpExhaustedDelivery(db, Date.now(), message.body.delivery_id);
        logger.error("webhook delivery dead-lettered", { delivery_id: message.body.delivery_id, given_up: given.length > 0 });
      }
      message.ack();
    }
    return;
  }

  // Up to MAX_CONCURRENT_ATTEMPTS at once: one slow endpoint (up to 10 s) does not hold up the
  // others, and no attempt waits for a connection (a Worker has 6 open at a time) while its
  // 10-second limit runs.
  await forEachLimited(batch.messages, MAX_CONCURRENT_ATTEMPTS, async (message) => {
    if (!isWebhookMessage(message.body)) {
      logger.warn("dropping a malformed webhook-deliveries message", { message_id: message.id });
      message.ack();
      return;
    }
    try {
      const db = await databases.of(message.body.agency_id);
      const outcome = db ? await deliver({ db, queue: env.WEBHOOK_QUEUE, logger }, message.body.delivery_id) : "endpoint-gone";
      logger.info("webhook delivery", { delivery_id: message.body.delivery_id, attempts: message.attempts, outcome });
      message.ack();
    } catch (error) {
      logger.error("webhook delivery crashed", { delivery_id: message.body.delivery_id, error: (error as Error).message });
      message.retry({ delaySeconds: crashRetrySeconds(message.attempts) });
    }
  });
}

/** True for a batch of `webhook-deliveries` or its dead-letter queue (the Worker consumes both kinds of queue). */
export const isWebhookQueue = (name: string) => name === WEBHOOK_QUEUE_NAME || name === WEBHOOK_DLQ_NAME;

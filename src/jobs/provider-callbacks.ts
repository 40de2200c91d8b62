import type { Env } from "@/env";
import { createLogger } from "@/lib/logger";
import { publishWritten } from "@/domain/webhooks/publish";
import { applyDeferredCallback, DEAD_LETTER_RETRY_SECONDS, deferredRetrySeconds, type DeferredOutcome } from "@/domain/provider-callbacks/deferred-callback";
import { CALLBACK_DLQ_NAME, CALLBACK_QUEUE_NAME, callbackLogFields, isProviderCallback } from "@/domain/provider-callbacks/provider-callback";

export const isCallbackQueue = (name: string) => name === CALLBACK_QUEUE_NAME || name === CALLBACK_DLQ_NAME;

/**
 * The `provider-callbacks` consumer and its dead-letter queue (docs/decisions/real-providers.md):
 * callbacks accepted while their agency was moving (or while its database failed), applied once
 * the agency is in one place again. Each message is acked or retried on its own: retried with a
 * delay while the agency still moves or the write fails, acked once applied (or found applied
 * already, or its agency deleted). The dead-letter queue goes on trying hourly, each failure
 * logged as an error naming the callback (never its phone numbers or text).
 */
export async function handleCallbackBatch(batch: MessageBatch<unknown>, env: Env, now = Date.now()): Promise<void> {
  const logger = createLogger({ job: "provider-callbacks", queue: batch.queue }, env.LOG_LEVEL);
  const dead = batch.queue === CALLBACK_DLQ_NAME;
  for (const message of batch.messages) {
    const callback = message.body;
    if (!isProviderCallback(callback)) {
      logger.warn("dropping a malformed provider-callbacks message", { message_id: message.id });
      message.ack();
      continue;
    }
    const fields = { ...callbackLogFields(callback), attempts: message.attempts };
    let result: DeferredOutcome | { outcome: "error" };
    try {
      result = await applyDeferredCallback(env, callback, now);
    } catch (error) {
      logger.error("provider callback failed", { ...fields, error: (error as Error).message });
      result = { outcome: "error" };
    }
    if (result.outcome === "moving" || result.outcome === "error") {
      if (dead) logger.error("provider callback dead-lettered, still not applied", fields);
      message.retry({ delaySeconds: dead ? DEAD_LETTER_RETRY_SECONDS : deferredRetrySeconds(message.attempts) });
    } else {
      if (result.outcome === "agency-gone") logger.warn("provider callback for an agency that no longer exists; dropped", fields);
      else logger.info("provider callback applied", { ...fields, outcome: result.outcome });
      message.ack();
    }
    // The events the callback wrote go to the agency's webhooks now.
    if ("db" in result && result.db) await publishWritten(result.db, env.WEBHOOK_QUEUE, logger);
  }
}

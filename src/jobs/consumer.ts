import { AgencyDatabases } from "@/db/shards";
import type { Env } from "@/env";
import { createLogger } from "@/lib/logger";
import { publishWritten } from "@/domain/webhooks/publish";
import { CALL_DLQ_NAME, retryDelaySeconds, type CallMessage } from "@/lib/queues/call-message";
import { dialCall, failUndialed, pollCall, type DispatchDeps, type DispatchResult } from "@/domain/voice-ai/dispatch";
import { chooseVoiceProvider, type VoiceProvider } from "@/integrations/voice-providers";

const isCallMessage = (body: unknown): body is CallMessage =>
  typeof body === "object" &&
  body !== null &&
  ((body as CallMessage).type === "dial" || (body as CallMessage).type === "poll") &&
  typeof (body as CallMessage).call_id === "string" &&
  ["string", "undefined"].includes(typeof (body as CallMessage).agency_id);

/**
 * The `voice-calls` consumer (and its dead-letter queue). Messages are handled one by one;
 * each is acked or retried explicitly, so one failure never redelivers the whole batch.
 * An unexpected error (D1 unavailable, a bug) retries the message with backoff; after the
 * queue's `max_retries` it goes to `voice-calls-dlq`, where the call is marked failed. Each
 * message's call is read on its agency's shard. The call events written meanwhile are published
 * at the end of the batch.
 */
export async function handleCallBatch(
  batch: MessageBatch<unknown>,
  env: Env,
  options: { provider?: VoiceProvider; now?: number } = {},
): Promise<void> {
  const logger = createLogger({ job: "voice-calls", queue: batch.queue }, env.LOG_LEVEL);
  const databases = new AgencyDatabases(env);
  const publishAll = async () => {
    for (const db of await databases.opened()) await publishWritten(db, env.WEBHOOK_QUEUE, logger);
  };

  if (batch.queue === CALL_DLQ_NAME) {
    for (const message of batch.messages) {
      const db = isCallMessage(message.body) && message.body.type === "dial" ? await databases.of(message.body.agency_id) : undefined;
      if (db && isCallMessage(message.body) && (await failUndialed(db, message.body.call_id, options.now))) {
        logger.error("voice call dead-lettered; marked failed", { call_id: message.body.call_id });
      }
      message.ack();
    }
    await publishAll();
    return;
  }

  let provider: VoiceProvider;
  try {
    provider = options.provider ?? chooseVoiceProvider(env);
  } catch (error) {
    logger.error("voice provider misconfigured", { error: (error as Error).message });
    for (const message of batch.messages) message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    return;
  }

  for (const message of batch.messages) {
    if (!isCallMessage(message.body)) {
      logger.warn("dropping a malformed voice-calls message", { message_id: message.id });
      message.ack();
      continue;
    }
    let result: DispatchResult;
    try {
      const db = await databases.of(message.body.agency_id);
      if (db) {
        const deps: DispatchDeps = { db, queue: env.CALL_QUEUE, provider, logger, now: options.now };
        result = message.body.type === "dial" ? await dialCall(deps, message.body.call_id) : await pollCall(deps, message.body.call_id);
      } else result = { action: "ack", outcome: "agency-gone" };
    } catch (error) {
      logger.error("voice call dispatch crashed", { call_id: message.body.call_id, error: (error as Error).message });
      result = { action: "retry", delaySeconds: retryDelaySeconds(message.attempts), outcome: "error" };
    }
    logger.info("voice call message", { call_id: message.body.call_id, type: message.body.type, attempts: message.attempts, ...result });
    if (result.action === "retry") message.retry({ delaySeconds: result.delaySeconds });
    else message.ack();
  }
  await publishAll();
}

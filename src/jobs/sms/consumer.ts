import { AgencyDatabases } from "@/db/shards";
import type { Env } from "@/env";
import { forEachLimited } from "@/lib/for-each-limited";
import { createLogger } from "@/lib/logger";
import { SMS_DLQ_NAME, SMS_QUEUE_NAME, type SmsMessage } from "@/lib/queues/sms-message";
import { publishWritten } from "@/domain/webhooks/publish";
import { attemptSms, type AttemptOutcome } from "@/domain/messages/sms-attempt";
import { smsNumberOf } from "@/domain/messages/sms-numbers";
import type { SmsProvider } from "@/domain/messages/sms-provider";
import { chooseSmsProvider } from "@/integrations/sms-providers";

const isSmsMessage = (body: unknown): body is SmsMessage =>
  typeof body === "object" &&
  body !== null &&
  (body as SmsMessage).type === "send" &&
  typeof (body as SmsMessage).message_id === "string" &&
  typeof (body as SmsMessage).agency_id === "string";

/** Crashes are retried by the queue with this backoff before the message is dead-lettered. */
const crashRetrySeconds = (attempts: number) => Math.min(10 * 2 ** Math.max(0, attempts - 1), 300);

/** Attempts of a batch run at once: a Worker keeps at most 6 connections open, and an attempt's requests have a time limit. */
const MAX_CONCURRENT_ATTEMPTS = 6;

/**
 * The `sms-sends` consumer (and its dead-letter queue). Each message is one attempt of one stored
 * SMS, read on its agency's shard; the attempt schedules its own retries with a new, delayed
 * message (src/domain/messages/sms-attempt.ts), so this queue's retries are only for crashes (D1
 * unavailable, a move's fence, a bug). A message that keeps crashing lands in `sms-sends-dlq`,
 * where it is only logged: the SMS stays stored and due, and the cron's sweep sends it again
 * (or gives it up once it is hours old). The `message.updated` events written meanwhile are
 * published at the end of the batch.
 */
export async function handleSmsBatch(batch: MessageBatch<unknown>, env: Env, options: { provider?: SmsProvider } = {}): Promise<void> {
  const logger = createLogger({ job: "sms-sends", queue: batch.queue }, env.LOG_LEVEL);
  if (batch.queue === SMS_DLQ_NAME) {
    for (const message of batch.messages) {
      logger.error("sms send dead-lettered; the sweep sends it again", { body: isSmsMessage(message.body) ? message.body : null });
      message.ack();
    }
    return;
  }

  let provider: SmsProvider;
  try {
    provider = options.provider ?? chooseSmsProvider(env);
  } catch (error) {
    logger.error("sms provider misconfigured", { error: (error as Error).message });
    for (const message of batch.messages) message.retry({ delaySeconds: crashRetrySeconds(message.attempts) });
    return;
  }
  const databases = new AgencyDatabases(env);
  // The simulator sends from no number: no directory read for it.
  const senderOf = provider.name === "simulated" ? async () => null : (agencyId: string) => smsNumberOf(env, agencyId);

  await forEachLimited(batch.messages, MAX_CONCURRENT_ATTEMPTS, async (message) => {
    if (!isSmsMessage(message.body)) {
      logger.warn("dropping a malformed sms-sends message", { message_id: message.id });
      message.ack();
      return;
    }
    const ref = { agencyId: message.body.agency_id, messageId: message.body.message_id };
    try {
      const db = await databases.of(ref.agencyId);
      const outcome: AttemptOutcome | "agency-gone" = db ? await attemptSms({ db, queue: env.SMS_QUEUE, provider, logger, senderOf }, ref) : "agency-gone";
      logger.info("sms attempt", { message_id: ref.messageId, attempts: message.attempts, outcome });
      message.ack();
    } catch (error) {
      logger.error("sms attempt crashed", { message_id: ref.messageId, error: (error as Error).message });
      message.retry({ delaySeconds: crashRetrySeconds(message.attempts) });
    }
  });
  for (const db of await databases.opened()) await publishWritten(db, env.WEBHOOK_QUEUE, logger);
}

/** True for a batch of `sms-sends` or its dead-letter queue. */
export const isSmsQueue = (name: string) => name === SMS_QUEUE_NAME || name === SMS_DLQ_NAME;

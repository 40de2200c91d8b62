import { createDb } from "@/db/client";
import { listShards, shardBinding, shardDatabase } from "@/db/shards";
import type { Env } from "@/env";
import { createLogger } from "@/lib/logger";
import { meteredEnv } from "@/lib/metered-env";
import { recoverMoves } from "@/domain/agencies/move-agency";
import { sendInBatches } from "@/lib/queues/send-in-batches";
import { sweepCalls } from "./sweep";
import { publishWritten } from "@/domain/webhooks/publish";
import { sweepWebhooks } from "./webhooks/sweep";
import { sweepSms } from "./sms/sweep";
import { pruneExpiredIdempotencyKeys } from "@/domain/retention/expired-idempotency-keys";
import type { SweepMessage } from "@/lib/queues/sweep-message";

/**
 * The every-minute cron across shards. One Worker invocation may make 1,000 D1 queries and hold
 * 6 connections open, while each shard's sweep makes about a dozen: the cron itself only reads
 * the directory and sends one `shard-sweeps` message per shard, and each message's sweep runs in
 * a queue invocation of its own, so the cron's cost stays flat as shards are added and the
 * queue runs the sweeps side by side (docs/operations.md, Scaling).
 */

export const SWEEP_QUEUE_NAME = "shard-sweeps";

const isSweepMessage = (body: unknown): body is SweepMessage =>
  typeof body === "object" &&
  body !== null &&
  (body as SweepMessage).type === "sweep" &&
  typeof (body as SweepMessage).shard === "string" &&
  typeof (body as SweepMessage).scheduled_time === "number";

/** The Cron Trigger: finishes or undoes interrupted moves, then sends each registered shard its sweep. */
export async function handleScheduled(controller: ScheduledController, workerEnv: Env): Promise<number> {
  const started = Date.now();
  const { env, d1 } = meteredEnv(workerEnv);
  const logger = createLogger({ job: "cron", cron: controller.cron }, env.LOG_LEVEL);
  try {
    const recovered = await recoverMoves(env, controller.scheduledTime);
    if (recovered) logger.warn("agency move recovered", { outcome: recovered });
  } catch (error) {
    logger.error("recovering an agency move failed; the next run retries", { error: (error as Error).message });
  }
  const shards = (await listShards(env)).filter((s) => shardBinding(env, s.name) !== undefined);
  await sendInBatches(
    env.SWEEP_QUEUE,
    shards.map((s) => ({ body: { type: "sweep", shard: s.name, scheduled_time: controller.scheduledTime } satisfies SweepMessage })),
  );
  logger.info("cron", { shards: shards.length, ms: Date.now() - started, ...d1() });
  return shards.length;
}

/** One shard's sweeps, as of the cron's time: calls, webhook deliveries, old events, outbound SMS, expired idempotency keys. */
export async function sweepShard(env: Env, shard: string, now: number) {
  const db = createDb(shardDatabase(env, shard));
  const calls = await sweepCalls(db, env.CALL_QUEUE, now);
  const webhooks = await sweepWebhooks(db, env.WEBHOOK_QUEUE, now);
  const sms = await sweepSms(db, env.SMS_QUEUE, now);
  const idempotencyKeysPruned = await pruneExpiredIdempotencyKeys(db, now);
  return { db, report: { ...calls, ...webhooks, ...sms, idempotency_keys_pruned: idempotencyKeysPruned } };
}

/**
 * The `shard-sweeps` consumer: each message sweeps one shard. A failure retries that shard's
 * message alone; one still failing is dropped, as the next minute's cron sends another.
 */
export async function handleSweepBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const logger = createLogger({ job: "shard-sweep" }, env.LOG_LEVEL);
  for (const message of batch.messages) {
    const body = message.body;
    if (!isSweepMessage(body) || shardBinding(env, body.shard) === undefined) {
      logger.warn("dropping a shard-sweeps message of no known shard", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const started = Date.now();
      const metered = meteredEnv(env);
      const { db, report } = await sweepShard(metered.env, body.shard, body.scheduled_time);
      logger.info("shard sweep", { shard: body.shard, ...report, ms: Date.now() - started, ...metered.d1() });
      await publishWritten(db, env.WEBHOOK_QUEUE, logger);
      message.ack();
    } catch (error) {
      logger.error("shard sweep failed", { shard: body.shard, error: (error as Error).message });
      message.retry({ delaySeconds: 5 });
    }
  }
}

import { app } from "@/app";
import type { Env } from "@/env";
import { handleCallBatch } from "@/jobs/consumer";
import { handleCallbackBatch, isCallbackQueue } from "@/jobs/provider-callbacks";
import { handleScheduled, handleSweepBatch, SWEEP_QUEUE_NAME } from "@/jobs/shard-sweep";
import { handleWebhookBatch, isWebhookQueue } from "@/jobs/webhooks/consumer";
import { handleSmsBatch, isSmsQueue } from "@/jobs/sms/consumer";

export { AccessGate } from "@/durable-objects/access-gate";
export { AgencyMoveWorkflow } from "@/jobs/agency-move-workflow";

export default {
  fetch: app.fetch,
  /** Consumer of `voice-calls`, `webhook-deliveries`, `provider-callbacks`, `sms-sends`, their dead-letter queues, and `shard-sweeps` (wrangler.toml). */
  async queue(batch, env) {
    if (batch.queue === SWEEP_QUEUE_NAME) await handleSweepBatch(batch, env);
    else if (isWebhookQueue(batch.queue)) await handleWebhookBatch(batch, env);
    else if (isCallbackQueue(batch.queue)) await handleCallbackBatch(batch, env);
    else if (isSmsQueue(batch.queue)) await handleSmsBatch(batch, env);
    else await handleCallBatch(batch, env);
  },
  /** The every-minute Cron Trigger: one sweep per shard (calls, webhooks, SMS, pruning), through `shard-sweeps`. */
  async scheduled(controller, env) {
    await handleScheduled(controller, env);
  },
} satisfies ExportedHandler<Env, unknown>;

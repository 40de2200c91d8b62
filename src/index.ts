import { app } from "@/app";
import type { Env } from "@/env";
import { handleCallBatch } from "@/jobs/consumer";
import { handleScheduled } from "@/jobs/sweep";
import { handleWebhookBatch, isWebhookQueue } from "@/jobs/webhooks/consumer";
import { handleWebhookSweep } from "@/jobs/webhooks/sweep";

export { AccessGate } from "@/durable-objects/access-gate";

export default {
  fetch: app.fetch,
  /** Consumer of `voice-calls`, `webhook-deliveries` and their dead-letter queues (wrangler.toml). */
  async queue(batch, env) {
    if (isWebhookQueue(batch.queue)) await handleWebhookBatch(batch, env);
    else await handleCallBatch(batch, env);
  },
  /** The every-minute Cron Trigger: the Voice AI call sweep and the webhook sweep, each whatever the other does. */
  async scheduled(controller, env) {
    const results = await Promise.allSettled([handleScheduled(controller, env), handleWebhookSweep(controller, env)]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  },
} satisfies ExportedHandler<Env, unknown>;

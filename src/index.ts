import { app } from "@/app";
import type { Env } from "@/env";
import type { CallMessage } from "@/jobs/call-message";
import { handleCallBatch } from "@/jobs/consumer";
import { handleScheduled } from "@/jobs/sweep";

export { AccessGate } from "@/durable-objects/access-gate";

export default {
  fetch: app.fetch,
  /** Consumer of `voice-calls` and its dead-letter queue `voice-calls-dlq` (wrangler.toml). */
  async queue(batch, env) {
    await handleCallBatch(batch, env);
  },
  /** The every-minute Cron Trigger: the Voice AI call sweep. */
  async scheduled(controller, env) {
    await handleScheduled(controller, env);
  },
} satisfies ExportedHandler<Env, CallMessage>;

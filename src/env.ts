import type { AccessGateApi } from "@/lib/auth/gate-protocol";
import type { CallbackMessage } from "@/lib/queues/callback-message";
import type { CallMessage } from "@/lib/queues/call-message";
import type { SmsMessage } from "@/lib/queues/sms-message";
import type { MoveParams } from "@/lib/shards/move-params";
import type { SweepMessage } from "@/lib/queues/sweep-message";
import type { WebhookMessage } from "@/lib/webhooks/webhook-message";

/** Bindings and variables from wrangler.toml, `.dev.vars` and Worker secrets. */
export interface Env {
  /** The directory (where each agency lives) and the first shard. */
  DB: D1Database;
  /**
   * Further shards: one D1 database per binding, the binding's name being the shard's
   * (docs/operations.md, Scaling).
   */
  [shard: `DB_${string}`]: D1Database | undefined;
  /** Authentication cache and rate limits: one object per API key or client IP. */
  ACCESS_GATE: DurableObjectNamespace<AccessGateApi>;
  /** OAuth clients, grants and tokens (hashed) of connected apps, kept by @cloudflare/workers-oauth-provider (domain/auth/oauth-server.ts). */
  OAUTH_KV: KVNamespace;
  /** Producer of the `voice-calls` queue (Voice AI call dispatch, src/jobs). */
  CALL_QUEUE: Queue<CallMessage>;
  /** Producer of the `webhook-deliveries` queue (event delivery, src/jobs/webhooks). */
  WEBHOOK_QUEUE: Queue<WebhookMessage>;
  /** Producer of the `provider-callbacks` queue: verified provider callbacks applied once their agency's move ends (src/jobs/provider-callbacks.ts). */
  CALLBACK_QUEUE: Queue<CallbackMessage>;
  /** Producer of the `sms-sends` queue: outbound SMS, sent by its consumer (src/jobs/sms). */
  SMS_QUEUE: Queue<SmsMessage>;
  /** Producer of the `shard-sweeps` queue: the cron's sweep of each shard (src/jobs/shard-sweep.ts). */
  SWEEP_QUEUE: Queue<SweepMessage>;
  /** Moves of agencies between shards, one Workflow instance per move (src/jobs/agency-move-workflow.ts). */
  MOVE_WORKFLOW: Workflow<MoveParams>;
  /** Local development only: "true" also allows http://127.0.0.1:<port> and http://localhost:<port> webhook URLs. */
  ALLOW_LOOPBACK_WEBHOOKS?: string;
  /** Who places Voice AI calls: `simulated` (default) or `vapi`. */
  VOICE_PROVIDER?: string;
  /** Secret: Vapi private API key, required when VOICE_PROVIDER is `vapi`. */
  VAPI_API_KEY?: string;
  /** Vapi API base URL; default https://api.vapi.ai. */
  VAPI_BASE_URL?: string;
  /** Secret: the `x-vapi-secret` Vapi sends with its server messages (POST /providers/vapi/events). */
  VAPI_WEBHOOK_SECRET?: string;
  /** Who sends SMS: `simulated` (default) or `twilio` (docs/decisions/real-providers.md). */
  SMS_PROVIDER?: string;
  /** Secret: Twilio account SID, required when SMS_PROVIDER is `twilio`. */
  TWILIO_ACCOUNT_SID?: string;
  /** Secret: Twilio auth token: the Messages API's password and the key of Twilio's request signatures. */
  TWILIO_AUTH_TOKEN?: string;
  /** Twilio API base URL; default https://api.twilio.com. */
  TWILIO_BASE_URL?: string;
  /** The Worker's public origin (`https://api.example.com`), for the callback URLs providers are given and sign. */
  PUBLIC_BASE_URL?: string;
  /** Local use only: simulated calls last this many times less (`npm run dev` sets 20). */
  SIMULATED_CALL_SPEED?: string;
  /** Prefix of access tokens (`<prefix>_...`) and rotate keys (`<prefix>r_...`). */
  TOKEN_PREFIX: string;
  /**
   * Secret mixed into token hashes (HMAC-SHA256) so a leaked table is useless, and the key that
   * seals list cursors. Required: without it the Worker refuses every request but provider
   * callbacks (src/middleware/require-token-pepper.ts).
   */
  TOKEN_PEPPER?: string;
  /** Bearer token of the operator API; when unset every /admin path answers 404. */
  ADMIN_TOKEN?: string;
  /** "on" only under `npm run bench`: lets a request ask for its D1 rows read. */
  BENCH_METRICS?: string;
  /** `debug`, `info` (default), `warn`, `error` or `silent`. */
  LOG_LEVEL?: string;
}

declare global {
  // Lets `env` from `cloudflare:workers` (used by tests) see our bindings.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Cloudflare {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Env extends AppEnvBindings {}
  }
}
type AppEnvBindings = Env;

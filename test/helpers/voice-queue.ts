import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import main from "@/index";
import type { Env } from "@/env";
import type { CallMessage } from "@/lib/queues/call-message";
import { agencyOfRow } from "./shards";

/** A dial message; deliver() names the call's agency when `agencyId` is left out, as the Worker would. */
export const dial = (callId: string, agencyId?: string): CallMessage => ({ type: "dial", call_id: callId, ...(agencyId ? { agency_id: agencyId } : {}) });
export const poll = (callId: string, agencyId?: string): CallMessage => ({ type: "poll", call_id: callId, ...(agencyId ? { agency_id: agencyId } : {}) });

/** The Worker's exported handlers, typed as the runtime calls them (with an ExecutionContext). */
const worker = main as Required<Pick<ExportedHandler<Env, CallMessage>, "queue" | "scheduled">>;

let messageCounter = 0;

/**
 * A call or delivery message as the Worker sends it, naming the agency of its record (tests
 * write `dial(callId)` and `{ type: "deliver", delivery_id }`): found on whichever shard holds
 * the record; left without one when none does.
 */
async function withAgency(body: unknown): Promise<unknown> {
  if (typeof body !== "object" || body === null || "agency_id" in body) return body;
  const message = body as { type?: string; call_id?: unknown; delivery_id?: unknown };
  const found =
    (message.type === "dial" || message.type === "poll") && typeof message.call_id === "string"
      ? await agencyOfRow("voice_calls", message.call_id)
      : message.type === "deliver" && typeof message.delivery_id === "string"
        ? await agencyOfRow("webhook_deliveries", message.delivery_id)
        : undefined;
  return found ? { ...message, agency_id: found } : body;
}

/**
 * Hands messages to the Worker's exported queue handler, as the queue would, and returns the
 * ack/retry result. `asSent: true` hands the bodies over exactly as given (no agency filled in).
 */
export async function deliver(
  messages: { body: unknown; attempts?: number; id?: string }[],
  options: { env?: Env; queue?: string; asSent?: boolean } = {},
) {
  const bodies = await Promise.all(messages.map((m) => (options.asSent ? m.body : withAgency(m.body))));
  const batch = createMessageBatch(
    options.queue ?? "voice-calls",
    messages.map((m, i) => ({ id: m.id ?? `msg-${++messageCounter}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: bodies[i] })),
  );
  // The plugin's result lists retried messages but not their delay: record it on the way.
  const retried: { msgId: string; delaySeconds?: number }[] = [];
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    Object.defineProperty(message, "retry", {
      value: (options?: QueueRetryOptions) => {
        retried.push({ msgId: message.id, delaySeconds: options?.delaySeconds });
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<CallMessage>, options.env ?? (env as unknown as Env), ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual(retried.map(({ msgId }) => ({ msgId })));
  return { ids: batch.messages.map((m) => m.id), result, retried };
}

/**
 * Runs the Worker's exported scheduled handler as the Cron Trigger would, at `scheduledTime`,
 * then hands the `shard-sweeps` messages it sent to the Worker's queue handler, as the queue
 * would: one cron run, swept on every shard, before this returns. Returns those messages.
 */
export async function runCron(scheduledTime: number, customEnv: Env = env as unknown as Env) {
  const controller = createScheduledController({ scheduledTime, cron: "* * * * *" });
  const sent: { body: unknown }[] = [];
  const sweepQueue = {
    send: async (body: unknown) => void sent.push({ body }),
    sendBatch: async (messages: Iterable<{ body: unknown }>) => void sent.push(...[...messages].map((m) => ({ body: m.body }))),
  };
  const ctx = createExecutionContext();
  await worker.scheduled(controller, { ...customEnv, SWEEP_QUEUE: sweepQueue as unknown as Env["SWEEP_QUEUE"] }, ctx);
  if (sent.length > 0) await deliver(sent, { env: customEnv, queue: "shard-sweeps", asSent: true });
  return sent.map((m) => m.body as { type: string; shard: string; scheduled_time: number });
}

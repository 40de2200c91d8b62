import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import main from "@/index";
import type { Env } from "@/env";
import type { CallMessage } from "@/jobs/call-message";

export const dial = (callId: string): CallMessage => ({ type: "dial", call_id: callId });
export const poll = (callId: string): CallMessage => ({ type: "poll", call_id: callId });

/** The Worker's exported handlers, typed as the runtime calls them (with an ExecutionContext). */
const worker = main as Required<Pick<ExportedHandler<Env, CallMessage>, "queue" | "scheduled">>;

let messageCounter = 0;

/** Hands messages to the Worker's exported queue handler, as the queue would, and returns the ack/retry result. */
export async function deliver(messages: { body: unknown; attempts?: number; id?: string }[], options: { env?: Env; queue?: string } = {}) {
  const batch = createMessageBatch(
    options.queue ?? "voice-calls",
    messages.map((m) => ({ id: m.id ?? `msg-${++messageCounter}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
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
  if (sent.length > 0) await deliver(sent, { env: customEnv, queue: "shard-sweeps" });
  return sent.map((m) => m.body as { type: string; shard: string; scheduled_time: number });
}

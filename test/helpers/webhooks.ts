import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import type { Env } from "@/env";
import type { WebhookMessage } from "@/lib/webhooks/webhook-message";
import { api } from "./http";
import { deliver } from "./voice-queue";
import { recordingQueue } from "./voice-factories";

export const RECEIVER_URL = "https://hooks.example.com/partner-api";

/** A receiver URL of one test's own, so deliveries left running by other tests never reach it. */
export const uniqueReceiver = () => `https://hooks.example.com/${crypto.randomUUID()}`;

export interface ReceivedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A webhook receiver standing in for the partner's server at `base`: the Worker's outbound
 * `fetch` is replaced (test, Worker and queue consumer share one isolate), every request to
 * `base` is recorded, and `answers` says what to reply, in order (then 200). Other URLs of the
 * test hosts get a plain 200 (deliveries other tests left running); the rest go out as usual.
 */
export function stubReceiver(base: string, answers: (number | "hang" | "network")[] = [], options: { delayMs?: number } = {}) {
  const received: ReceivedRequest[] = [];
  const concurrency = { now: 0, max: 0 };
  const realFetch = globalThis.fetch;
  const queue = [...answers];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!request.url.startsWith("https://hooks.example.com/") && !request.url.startsWith("https://other.example.com/")) {
      return realFetch(input, init);
    }
    if (!request.url.startsWith(base)) return new Response("ok");
    received.push({ url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body: await request.text() });
    concurrency.max = Math.max(concurrency.max, ++concurrency.now);
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    concurrency.now--;
    const answer = queue.shift() ?? 200;
    if (answer === "network") throw new TypeError("fetch failed");
    if (answer === "hang") {
      // Never answers; the delivery's own 10 s limit (an AbortSignal) ends the wait.
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    }
    return new Response(answer >= 300 && answer < 400 ? null : "ok", {
      status: answer,
      headers: answer >= 300 && answer < 400 ? { Location: "https://elsewhere.example.com/" } : {},
    });
  });
  /** `concurrency.max`: the most requests the receiver had in flight at once. */
  return { received, concurrency };
}

/** A stand-in for the WEBHOOK_QUEUE binding that records what would be sent and delivers nothing. */
export const recordingWebhookQueue = (options: { failing?: boolean } = {}) => recordingQueue<WebhookMessage>(options);

/** The Worker's env with a recording WEBHOOK_QUEUE (and any other overrides). */
export function webhookEnv(overrides: Partial<Env> = {}) {
  const recorder = recordingWebhookQueue();
  return { env: { ...(env as unknown as Env), WEBHOOK_QUEUE: recorder.queue, ...overrides } as Env, sent: recorder.sent };
}

/** Hands `deliver` messages to the Worker's queue handler, as the `webhook-deliveries` queue would. */
export const deliverWebhooks = (deliveryIds: string[], options: { env?: Env } = {}) =>
  deliver(
    deliveryIds.map((id) => ({ body: { type: "deliver", delivery_id: id } satisfies WebhookMessage })),
    { queue: "webhook-deliveries", env: options.env },
  );

/** Creates a webhook endpoint through the API (at a URL of its own unless given) and expects 201; returns it with its secret. */
export async function createEndpoint(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/webhook-endpoints", { token, body: { url: uniqueReceiver(), events: ["*"], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { endpoint: res.body.webhook_endpoint as Record<string, any>, secret: res.body.secret as string };
}

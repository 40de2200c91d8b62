import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect, vi } from "vitest";
import { app } from "@/app";
import type { Env } from "@/env";
import type { CallMessage } from "@/lib/queues/call-message";
import { admin, api, BASE } from "./http";
import { createAgency, createKey, patchSettings, type TestAgency } from "./factories";
import { restoreClock, setClock } from "./clock";
import { deliver, poll } from "./voice-queue";
import { dbWith } from "./shards";

export interface VoiceAgentRecord {
  agent_uuid: string;
  name: string;
  status: string;
  provider_agent_id: string | null;
  phone_numbers: { outbound_phone_number_uuid: string; number: string; provider_number_id: string | null }[];
}

let numberCounter = 0;
/** A distinct valid caller id per call (NANP 555-01xx numbers are reserved for fiction). */
export const callerId = () => `+1646555${String(100 + (++numberCounter % 100)).padStart(4, "0")}`;

/** Creates a Voice AI agent through the operator API. */
export async function createVoiceAgent(
  agencyUuid: string,
  body: { name?: string; phone_numbers?: unknown[]; status?: string; provider_agent_id?: string } = {},
): Promise<VoiceAgentRecord> {
  const res = await admin("POST", `/agencies/${agencyUuid}/voice-agents`, {
    name: "Ava",
    phone_numbers: [callerId()],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.agent;
}

/** Adds funds through the operator API; returns the wallet after the credit. */
export async function creditWallet(agencyUuid: string, amountCents = 5000, extra: Record<string, unknown> = {}) {
  const res = await admin("POST", `/agencies/${agencyUuid}/wallet/credit`, { amount_cents: amountCents, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.wallet as { balance_cents: number; currency: string; rate_per_minute_cents: number; updated_at: string };
}

export interface VoiceAgency extends TestAgency {
  agent: VoiceAgentRecord;
  numberUuid: string;
}

export interface CallingHours {
  start: string;
  end: string;
  days?: number[];
}

/** Calling hours that never close, so a test's outcome does not depend on the time of day it runs. */
export const ALWAYS_OPEN: CallingHours = { start: "00:00", end: "24:00" };

export { patchSettings };

/**
 * A fresh agency (New York time unless told) with a `*` key, one active agent with one number,
 * $50 at 12 cents a minute (`balanceCents: 0` leaves the wallet empty), and calling hours that
 * are always open unless `callingHours` says otherwise.
 */
export async function setupVoiceAgency(
  options: { balanceCents?: number; rate?: number; timezone?: string; callingHours?: CallingHours; shard?: string } = {},
): Promise<VoiceAgency> {
  const agencyUuid = await createAgency("Voice Agency", options.timezone ?? "America/New_York", options.shard);
  const agency = { agencyUuid, ...(await createKey(agencyUuid, { scopes: ["*"] })) };
  await patchSettings(agency.token, { calling_hours: options.callingHours ?? ALWAYS_OPEN });
  const agent = await createVoiceAgent(agency.agencyUuid);
  if (options.balanceCents !== 0) {
    await creditWallet(agency.agencyUuid, options.balanceCents ?? 5000, { rate_per_minute_cents: options.rate ?? 12 });
  }
  return { ...agency, agent, numberUuid: agent.phone_numbers[0]!.outbound_phone_number_uuid };
}

/** Creates a call through the API and expects 201. */
export async function createCall(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.call as Record<string, any>;
}

export const getCall = async (token: string, callUuid: string) => {
  const res = await api("GET", `/voice-ai/calls/${callUuid}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.call as Record<string, any>;
};

/** Polls a call until it reaches `status` (the real queue dispatches it in the background). */
export async function waitForStatus(token: string, callUuid: string, status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let call = await getCall(token, callUuid);
  while (call.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    call = await getCall(token, callUuid);
  }
  expect(call.status, JSON.stringify(call)).toBe(status);
  return call;
}

/** The longest a simulated call talks (simulatedDuration), plus a second. */
const LONGEST_SIMULATED_CALL_MS = 301_000;

/**
 * Delivers the poll of an `in-progress` simulated call with the clock moved past the longest
 * simulated call after `startedAt`, as the queue would deliver it once the call is over (the
 * real queue's own poll waits in real time). The clock is put back unless the test faked it.
 */
export async function pollAfterCallEnds(callUuid: string, startedAt: string | number = Date.now()) {
  const faked = vi.isFakeTimers();
  setClock(new Date(startedAt).getTime() + LONGEST_SIMULATED_CALL_MS);
  try {
    return await deliver([{ body: poll(callUuid) }]);
  } finally {
    if (!faked) restoreClock();
  }
}

/** Follows a call that the real queue dials to its end (see pollAfterCallEnds). */
export async function finishCall(token: string, callUuid: string) {
  const running = await waitForStatus(token, callUuid, "in-progress");
  await pollAfterCallEnds(callUuid, running.started_at);
  return getCall(token, callUuid);
}

export const getWallet = async (token: string) => {
  const res = await api("GET", "/voice-ai/wallet", { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.wallet as { balance_cents: number; currency: string; rate_per_minute_cents: number; updated_at: string | null };
};

export interface SentMessage<T = CallMessage> {
  body: T;
  delaySeconds?: number;
}

/**
 * A stand-in for a queue binding (CALL_QUEUE unless typed otherwise) that records what would be
 * sent and delivers nothing, so a test decides when (and how often) the consumer sees a
 * message. `failing` makes every send throw, like a queue that is unavailable.
 */
export function recordingQueue<T = CallMessage>(options: { failing?: boolean } = {}) {
  const sent: SentMessage<T>[] = [];
  const refuse = () => {
    if (options.failing) throw new Error("Queue send failed (test)");
  };
  const queue = {
    async send(body: T, opts?: QueueSendOptions) {
      refuse();
      sent.push({ body, delaySeconds: opts?.delaySeconds });
    },
    async sendBatch(messages: Iterable<MessageSendRequest<T>>) {
      refuse();
      for (const m of messages) sent.push({ body: m.body, delaySeconds: m.delaySeconds });
    },
    async metrics() {
      return { backlogCount: 0, backlogBytes: 0 };
    },
  };
  return { queue: queue as unknown as Queue<T>, sent };
}

/** The Worker's env with another CALL_QUEUE (and any other overrides). */
export const envWith = (overrides: Partial<Env>): Env => ({ ...(env as unknown as Env), ...overrides });

/** Sends a request straight to the app with a custom env, waiting for its background work. */
export async function fetchWithEnv(customEnv: Env, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(request, customEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Sends a partner request straight to the app with a custom env (e.g. a recording queue). */
export async function apiWithEnv(customEnv: Env, method: string, path: string, token: string, body?: unknown) {
  const res = await fetchWithEnv(
    customEnv,
    new Request(`${BASE}/api/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** Rows of the ledger for one call (read directly: partners see only the balance). */
export async function ledgerOf(callUuid: string) {
  const { results } = await (await dbWith("voice_calls", callUuid)).prepare("SELECT type, amount_cents, call_id FROM wallet_ledger WHERE call_id = ?").bind(callUuid).all();
  return results as { type: string; amount_cents: number; call_id: string }[];
}

import { afterEach, describe, expect, it, vi } from "vitest";
import { createDb } from "@/db/client";
import { MAX_CALL_SUMMARY_LENGTH, MAX_ENDED_REASON_LENGTH } from "@/lib/queues/call-message";
import { queueDelayFor, sendDials } from "@/lib/queues/enqueue-calls";
import { simulatedDuration, simulatedProvider } from "@/integrations/simulators/voice";
import { ProviderError, type DialRequest, type PollRequest } from "@/domain/voice-ai/voice-provider";
import { createVapiProvider } from "@/integrations/vapi/voice-client";
import { callDebitStatements } from "@/domain/voice-ai/wallet.repository";
import { api } from "../helpers/http";
import {
  apiWithEnv,
  createCall,
  createVoiceAgent,
  envWith,
  getCall,
  getWallet,
  ledgerOf,
  patchSettings,
  pollAfterCallEnds,
  recordingQueue,
  setupVoiceAgency,
} from "../helpers/voice-factories";
import { restoreClock, setClock } from "../helpers/clock";
import { deliver, dial, poll, runCron } from "../helpers/voice-queue";
import { dbOf, dbWith } from "../helpers/shards";
import { commit } from "@/db/outbox";

const MINUTE = 60_000;
const DAY = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  restoreClock();
});

/** Dispatch bookkeeping partners do not see. */
async function row(callUuid: string) {
  return (await (await dbWith("voice_calls", callUuid)).prepare("SELECT status, attempts, due_at, enqueued_at, provider_call_id, updated_at FROM voice_calls WHERE id = ?")
    .bind(callUuid)
    .first()) as { status: string; attempts: number; due_at: string; enqueued_at: string | null; provider_call_id: string | null; updated_at: string };
}

/** A queued call the real queue will not deliver during the test (it is an hour away). */
const queuedCall = (token: string, body: Record<string, unknown> = {}) => createCall(token, { delay_seconds: 3600, ...body });

describe("queue consumer", () => {
  it("claims a queued call, dials it once, keeps it in progress while it talks, then completes it with one debit", async () => {
    const { token, agent, numberUuid } = await setupVoiceAgency();
    const call = await queuedCall(token, { phone: "+14155550123", first_name: "Ada", last_name: "Lovelace" });
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    const dialedAt = Date.now();
    setClock(dialedAt);
    const { ids, result } = await deliver([{ body: dial(call.call_uuid) }]);
    expect(result.explicitAcks).toEqual(ids);
    expect(result.retryMessages).toEqual([]);
    expect(startCall).toHaveBeenCalledTimes(1);
    const request = startCall.mock.calls[0]![0] as DialRequest;
    expect(request).toMatchObject({
      callId: call.call_uuid,
      phone: "+14155550123",
      contactName: "Ada Lovelace",
      attempt: 1,
      agent: { id: agent.agent_uuid, name: "Ava" },
      fromNumber: { id: numberUuid },
      // The agency's defaults: voice.max_call_minutes 10, voice.voicemail_behavior hang_up.
      maxDurationSeconds: 600,
      voicemailBehavior: "hang_up",
    });

    // Dialed: in progress, nothing ended yet, nothing charged.
    const duration = simulatedDuration(call.call_uuid);
    const started = new Date(dialedAt).toISOString();
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "in-progress", started_at: started, ended_at: null, duration_seconds: null });
    // A poll one second before the contact hangs up finds it still talking.
    setClock(dialedAt + (duration - 1) * 1000);
    await deliver([{ body: poll(call.call_uuid) }]);
    expect((await getCall(token, call.call_uuid)).status).toBe("in-progress");
    expect((await getWallet(token)).balance_cents).toBe(5000);

    // The poll after it ended completes it; ended_at is when it ended, never after the poll.
    setClock(dialedAt + duration * 1000 + 5_000);
    await deliver([{ body: poll(call.call_uuid) }]);
    const done = await getCall(token, call.call_uuid);
    const cost = Math.ceil(duration / 60) * 12;
    expect(done).toMatchObject({
      status: "completed",
      ended_reason: "customer-ended-call",
      duration_seconds: duration,
      cost_cents: cost,
      scheduled_at: call.scheduled_at,
      started_at: started,
      ended_at: new Date(dialedAt + duration * 1000).toISOString(),
    });
    expect(Date.parse(done.ended_at)).toBeLessThanOrEqual(Date.now());
    expect(done.summary).toContain("Ada Lovelace");
    expect(done.summary).toContain("Ava");
    expect((await getWallet(token)).balance_cents).toBe(5000 - cost);
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -cost, call_id: call.call_uuid }]);
    expect((await row(call.call_uuid)).attempts).toBe(1);
  });

  it("dials once when the same message is delivered twice in a batch, again later, and concurrently", async () => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token);
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    const first = await deliver([{ body: dial(call.call_uuid) }, { body: dial(call.call_uuid) }]);
    expect(first.result.explicitAcks).toEqual(first.ids);
    const redelivered = await deliver([{ body: dial(call.call_uuid), attempts: 2 }]);
    expect(redelivered.result.explicitAcks).toEqual(redelivered.ids);
    expect(startCall).toHaveBeenCalledTimes(1);

    const other = await queuedCall(token);
    await Promise.all([deliver([{ body: dial(other.call_uuid) }]), deliver([{ body: dial(other.call_uuid) }])]);
    expect(startCall).toHaveBeenCalledTimes(2);

    await pollAfterCallEnds(call.call_uuid);
    // Two polls of the ended call at once (a redelivery): one completion, one debit.
    await Promise.all([pollAfterCallEnds(other.call_uuid), pollAfterCallEnds(other.call_uuid)]);
    const costs = [(await getCall(token, call.call_uuid)).cost_cents, (await getCall(token, other.call_uuid)).cost_cents];
    expect((await getWallet(token)).balance_cents).toBe(5000 - costs[0] - costs[1]);
    expect(await ledgerOf(call.call_uuid)).toHaveLength(1);
    expect(await ledgerOf(other.call_uuid)).toHaveLength(1);
  });

  it("never dials a call canceled before dispatch", async () => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token);
    expect((await api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token })).status).toBe(200);
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    const { ids, result } = await deliver([{ body: dial(call.call_uuid) }]);
    expect(result.explicitAcks).toEqual(ids);
    expect(startCall).not.toHaveBeenCalled();
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "canceled", started_at: null, cost_cents: null });
    expect((await getWallet(token)).balance_cents).toBe(5000);
    expect((await row(call.call_uuid)).attempts).toBe(0);
  });

  it("does not dial a scheduled call on a stray message, nor an unknown call", async () => {
    const { token } = await setupVoiceAgency();
    const scheduled = await createCall(token, { scheduled_at: new Date(Date.now() + 3 * DAY).toISOString().slice(0, 16) + "Z" });
    const startCall = vi.spyOn(simulatedProvider, "startCall");
    const { ids, result } = await deliver([{ body: dial(scheduled.call_uuid) }, { body: dial(crypto.randomUUID()) }, { body: { nonsense: true } }]);
    expect(result.explicitAcks).toEqual(ids);
    expect(startCall).not.toHaveBeenCalled();
    expect((await getCall(token, scheduled.call_uuid)).status).toBe("scheduled");
  });

  it("retries a failed dial with exponential backoff, then ends it failed without a charge", async () => {
    const { token } = await setupVoiceAgency();
    // The simulated provider never manages to dial a number ending in 0009.
    const call = await queuedCall(token, { phone: "+14155550009" });
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    for (const [attempt, delay] of [[1, 30], [2, 60], [3, 120]] as const) {
      const before = Date.now();
      const { ids, result, retried } = await deliver([{ body: dial(call.call_uuid), attempts: attempt }]);
      expect(retried, `attempt ${attempt}`).toEqual([{ msgId: ids[0], delaySeconds: delay }]);
      expect(result.explicitAcks).toEqual([]);
      // Back to queued, due again after the backoff, so it can still be canceled meanwhile.
      const state = await row(call.call_uuid);
      expect(state).toMatchObject({ status: "queued", attempts: attempt });
      expect(Date.parse(state.due_at)).toBeGreaterThanOrEqual(before + delay * 1000);
      expect((await getCall(token, call.call_uuid)).started_at).toBeNull();
    }
    const last = await deliver([{ body: dial(call.call_uuid), attempts: 4 }]);
    expect(last.result.explicitAcks).toEqual(last.ids);
    expect(last.result.retryMessages).toEqual([]);
    expect(startCall).toHaveBeenCalledTimes(4);
    expect(startCall.mock.calls.map((c) => (c[0] as DialRequest).attempt)).toEqual([1, 2, 3, 4]);

    expect(await getCall(token, call.call_uuid)).toMatchObject({
      status: "failed",
      ended_reason: "dial-failed",
      duration_seconds: 0,
      cost_cents: 0,
      started_at: null,
      ended_at: expect.stringMatching(ISO),
    });
    expect((await getWallet(token)).balance_cents).toBe(5000);
    expect(await ledgerOf(call.call_uuid)).toEqual([]);
    // A late duplicate changes nothing.
    await deliver([{ body: dial(call.call_uuid), attempts: 5 }]);
    expect(startCall).toHaveBeenCalledTimes(4);
  });

  it("dials on the retry after a transient failure and charges once", async () => {
    const { token } = await setupVoiceAgency();
    // 0008 fails on the first attempt only.
    const call = await queuedCall(token, { phone: "+14155550008" });
    const first = await deliver([{ body: dial(call.call_uuid) }]);
    expect(first.retried).toEqual([{ msgId: first.ids[0], delaySeconds: 30 }]);
    const second = await deliver([{ body: dial(call.call_uuid), attempts: 2 }]);
    expect(second.result.explicitAcks).toEqual(second.ids);
    await pollAfterCallEnds(call.call_uuid);
    const done = await getCall(token, call.call_uuid);
    expect(done.status).toBe("completed");
    expect((await getWallet(token)).balance_cents).toBe(5000 - done.cost_cents);
    expect(await ledgerOf(call.call_uuid)).toHaveLength(1);
  });

  it("lets a call waiting for its retry be canceled, and then never dials it", async () => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token, { phone: "+14155550009" });
    await deliver([{ body: dial(call.call_uuid) }]);
    expect((await api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token })).status).toBe(200);
    const startCall = vi.spyOn(simulatedProvider, "startCall");
    await deliver([{ body: dial(call.call_uuid), attempts: 2 }]);
    expect(startCall).not.toHaveBeenCalled();
    expect((await getCall(token, call.call_uuid)).status).toBe("canceled");
  });

  it("fails a call at once when the provider rejects it (no retry helps)", async () => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token);
    vi.spyOn(simulatedProvider, "startCall").mockRejectedValue(new ProviderError("invalid number", { retryable: false, status: 400 }));
    const { ids, result } = await deliver([{ body: dial(call.call_uuid) }]);
    expect(result.explicitAcks).toEqual(ids);
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "failed", ended_reason: "dial-failed", cost_cents: 0 });
  });

  it.each([
    ["0002", "customer-busy"],
    ["0003", "customer-did-not-answer"],
    ["0004", "voicemail"],
  ])("ends a call to a number ending in %s as failed (%s) without a charge", async (suffix, reason) => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token, { phone: `+1415555${suffix}` });
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(await getCall(token, call.call_uuid)).toMatchObject({
      status: "failed",
      ended_reason: reason,
      duration_seconds: 0,
      cost_cents: 0,
      started_at: null,
      summary: null,
    });
    expect((await getWallet(token)).balance_cents).toBe(5000);
    expect(await ledgerOf(call.call_uuid)).toEqual([]);
  });

  it("debits a call exactly once: a second completion's debit statements change nothing", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const call = await queuedCall(token);
    await deliver([{ body: dial(call.call_uuid) }]);
    await pollAfterCallEnds(call.call_uuid);
    const charged = (await getWallet(token)).balance_cents;
    expect(charged).toBeLessThan(5000);

    const d1 = await dbOf(agencyUuid);
    const db = createDb(d1);
    await commit(db, callDebitStatements(db, agencyUuid, call.call_uuid, new Date().toISOString()));
    expect((await getWallet(token)).balance_cents).toBe(charged);
    expect(await ledgerOf(call.call_uuid)).toHaveLength(1);
    // The partial unique index itself refuses a second debit row for the call.
    await expect(
      d1.prepare("INSERT INTO wallet_ledger (id, agency_id, type, amount_cents, call_id, created_at) VALUES (?, ?, 'call_debit', -1, ?, ?)")
        .bind(crypto.randomUUID(), agencyUuid, call.call_uuid, new Date().toISOString())
        .run(),
    ).rejects.toThrow(/UNIQUE constraint failed/);
  });

  it("stores a provider's report within the documented bounds: text cut, duration and charge capped at one hour", async () => {
    const { token } = await setupVoiceAgency({ rate: 12 });
    const call = await queuedCall(token);
    const startedAt = new Date(Date.now() - 3 * 3_600_000).toISOString();
    vi.spyOn(simulatedProvider, "startCall").mockResolvedValue({
      state: "ended",
      providerCallId: "sim-verbose",
      outcome: {
        status: "completed",
        endedReason: `customer-ended-call${"-again".repeat(50)}`,
        startedAt,
        endedAt: new Date().toISOString(),
        durationSeconds: 3 * 3_600,
        // The cut falls inside the emoji's surrogate pair, which is dropped whole.
        summary: `${"s".repeat(MAX_CALL_SUMMARY_LENGTH - 1)}\u{1F4DE} and more`,
      },
    });
    await deliver([{ body: dial(call.call_uuid) }]);
    const ended = await getCall(token, call.call_uuid);
    expect(ended).toMatchObject({ status: "completed", started_at: startedAt, duration_seconds: 3_600, cost_cents: 60 * 12 });
    expect(ended.ended_reason).toBe(`customer-ended-call${"-again".repeat(50)}`.slice(0, MAX_ENDED_REASON_LENGTH));
    expect(ended.summary).toBe("s".repeat(MAX_CALL_SUMMARY_LENGTH - 1));
    expect((await getWallet(token)).balance_cents).toBe(5000 - 60 * 12);
  });

  it("lets a finished call take the balance below zero, after which new calls are 402", async () => {
    const { token } = await setupVoiceAgency({ balanceCents: 50, rate: 100 });
    const call = await queuedCall(token);
    await deliver([{ body: dial(call.call_uuid) }]);
    await pollAfterCallEnds(call.call_uuid);
    const cost = Math.ceil(simulatedDuration(call.call_uuid) / 60) * 100;
    expect((await getWallet(token)).balance_cents).toBe(50 - cost);
    const refused = await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123" } });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ success: false, error: "Insufficient wallet balance", code: "insufficient_funds" });
  });

  it("retries every message, dialing none, while the provider is misconfigured", async () => {
    const { token } = await setupVoiceAgency();
    const call = await queuedCall(token);
    const { ids, retried } = await deliver([{ body: dial(call.call_uuid), attempts: 2 }], {
      env: envWith({ VOICE_PROVIDER: "vapi", VAPI_API_KEY: undefined }),
    });
    expect(retried).toEqual([{ msgId: ids[0], delaySeconds: 60 }]);
    expect(await row(call.call_uuid)).toMatchObject({ status: "queued", attempts: 0 });
  });

  it("marks a dead-lettered call failed if it was never dialed, and leaves finished calls alone", async () => {
    const { token } = await setupVoiceAgency();
    const stuck = await queuedCall(token);
    const done = await queuedCall(token);
    await deliver([{ body: dial(done.call_uuid) }]);
    await pollAfterCallEnds(done.call_uuid);
    const completed = await getCall(token, done.call_uuid);

    const { ids, result } = await deliver([{ body: dial(stuck.call_uuid) }, { body: dial(done.call_uuid) }], { queue: "voice-calls-dlq" });
    expect(result.explicitAcks).toEqual(ids);
    expect(await getCall(token, stuck.call_uuid)).toMatchObject({ status: "failed", ended_reason: "dial-failed", cost_cents: 0 });
    expect(await getCall(token, done.call_uuid)).toEqual(completed);
    expect(await ledgerOf(stuck.call_uuid)).toEqual([]);
  });
});

describe("enqueueing", () => {
  it("never sends a message delayed beyond the queue's 86,400 s maximum", async () => {
    const now = Date.now();
    expect(queueDelayFor(new Date(now + 86_400_000).toISOString(), now)).toBe(86_400);
    expect(queueDelayFor(new Date(now - 5_000).toISOString(), now)).toBe(0);
    expect(() => queueDelayFor(new Date(now + 86_401_000).toISOString(), now)).toThrow(RangeError);
    const { queue, sent } = recordingQueue();
    await expect(
      sendDials(
        queue,
        [
          { id: "a", agencyId: "x", dueAt: new Date(now + 60_000).toISOString() },
          { id: "b", agencyId: "x", dueAt: new Date(now + 2 * DAY).toISOString() },
        ],
        now,
      ),
    ).rejects.toThrow(RangeError);
    expect(sent).toEqual([]);
  });
});

describe("cron sweep", () => {
  it("enqueues a call scheduled beyond the queue's delay only when it falls due", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const call = await createCall(token, { scheduled_at: new Date(Date.now() + 3 * DAY).toISOString().slice(0, 16) + "Z" });
    expect(call.status).toBe("scheduled");
    const due = Date.parse(call.scheduled_at);
    const { queue, sent } = recordingQueue();
    const cronEnv = envWith({ CALL_QUEUE: queue });

    await runCron(Date.now(), cronEnv);
    await runCron(due - DAY, cronEnv);
    await runCron(due - 2 * MINUTE, cronEnv);
    expect(sent.filter((m) => m.body.call_id === call.call_uuid)).toEqual([]);
    expect((await getCall(token, call.call_uuid)).status).toBe("scheduled");

    // The run before it is due sends it with the remaining delay, so it is dialed on time.
    await runCron(due - 30_000, cronEnv);
    expect(sent.filter((m) => m.body.call_id === call.call_uuid)).toEqual([{ body: dial(call.call_uuid, agencyUuid), delaySeconds: 30 }]);
    expect((await getCall(token, call.call_uuid)).status).toBe("queued");
    await runCron(due, cronEnv);
    expect(sent.filter((m) => m.body.call_id === call.call_uuid)).toHaveLength(1);
    expect(sent.every((m) => (m.delaySeconds ?? 0) <= 86_400)).toBe(true);

    setClock(due);
    await deliver([{ body: dial(call.call_uuid) }]);
    expect((await getCall(token, call.call_uuid)).status).toBe("in-progress");
  });

  it("sends a due call whose enqueue failed at creation", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const failing = recordingQueue({ failing: true });
    const res = await apiWithEnv(envWith({ CALL_QUEUE: failing.queue }), "POST", "/voice-ai/calls", token, { phone: "+14155550123" });
    expect(res.status).toBe(201);
    expect(res.body.call.status).toBe("queued");
    expect((await row(res.body.call.call_uuid)).enqueued_at).toBeNull();

    const { queue, sent } = recordingQueue();
    await runCron(Date.now(), envWith({ CALL_QUEUE: queue }));
    expect(sent.filter((m) => m.body.call_id === res.body.call.call_uuid)).toEqual([{ body: dial(res.body.call.call_uuid, agencyUuid), delaySeconds: 0 }]);
    expect((await row(res.body.call.call_uuid)).enqueued_at).toMatch(ISO);
    await runCron(Date.now(), envWith({ CALL_QUEUE: queue }));
    expect(sent.filter((m) => m.body.call_id === res.body.call.call_uuid)).toHaveLength(1);
  });

  it("re-enqueues a due queued call whose message was lost, at most every five minutes", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const created = recordingQueue();
    const res = await apiWithEnv(envWith({ CALL_QUEUE: created.queue }), "POST", "/voice-ai/calls", token, { phone: "+14155550123" });
    const id = res.body.call.call_uuid as string;
    expect(created.sent).toEqual([{ body: dial(id, agencyUuid), delaySeconds: 0 }]);
    // The message never arrives.
    const start = Date.now();
    const { queue, sent } = recordingQueue();
    const cronEnv = envWith({ CALL_QUEUE: queue });
    const mine = () => sent.filter((m) => m.body.call_id === id);

    await runCron(start + 2 * MINUTE, cronEnv);
    expect(mine()).toEqual([]);
    await runCron(start + 6 * MINUTE, cronEnv);
    expect(mine()).toEqual([{ body: dial(id, agencyUuid), delaySeconds: 0 }]);
    await runCron(start + 7 * MINUTE, cronEnv);
    expect(mine()).toHaveLength(1);
    await runCron(start + 12 * MINUTE, cronEnv);
    expect(mine()).toHaveLength(2);

    await deliver([{ body: dial(id) }, { body: dial(id) }, { body: dial(id) }]);
    await pollAfterCallEnds(id);
    expect((await getCall(token, id)).status).toBe("completed");
    expect(await ledgerOf(id)).toHaveLength(1);
  });

  it("re-polls quiet in-progress calls and closes each past its own voice.max_call_minutes plus grace, uncharged", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const recorder = recordingQueue();
    const createEnv = envWith({ CALL_QUEUE: recorder.queue });
    const create = async (phone: string) => (await apiWithEnv(createEnv, "POST", "/voice-ai/calls", token, { phone })).body.call;
    const waiting = await create("+14155550123");
    const short = await create("+14155550124");
    const long = await create("+14155550125");
    // The provider accepts the calls but never reports an end.
    vi.spyOn(simulatedProvider, "startCall").mockResolvedValue({ state: "active", providerCallId: "sim-stuck", pollAfterSeconds: 30 });
    // `short` is dialed under the default 10-minute limit, `long` after the agency raised it to 30.
    await deliver([{ body: dial(short.call_uuid) }], { env: createEnv });
    await patchSettings(token, { voice: { max_call_minutes: 30 } });
    await deliver([{ body: dial(long.call_uuid) }], { env: createEnv });
    expect(await getCall(token, short.call_uuid)).toMatchObject({ status: "in-progress", started_at: expect.stringMatching(ISO) });
    expect(recorder.sent.at(-1)).toEqual({ body: poll(long.call_uuid, agencyUuid), delaySeconds: 30 });

    const start = Date.now();
    const { queue, sent } = recordingQueue();
    const cronEnv = envWith({ CALL_QUEUE: queue });
    const statuses = async () => Promise.all([waiting, short, long].map(async (c) => (await getCall(token, c.call_uuid)).status));
    await runCron(start + 6 * MINUTE, cronEnv);
    expect(sent).toContainEqual({ body: poll(short.call_uuid, agencyUuid), delaySeconds: 0 });
    expect(sent).toContainEqual({ body: poll(long.call_uuid, agencyUuid), delaySeconds: 0 });
    expect(sent).toContainEqual({ body: dial(waiting.call_uuid, agencyUuid), delaySeconds: 0 });
    expect(await statuses()).toEqual(["queued", "in-progress", "in-progress"]);

    // 10 minutes of talk plus 10 of grace: `short` is closed, `long` (30 + 10) is not.
    await runCron(start + 21 * MINUTE, cronEnv);
    expect(await statuses()).toEqual(["queued", "failed", "in-progress"]);
    expect(await getCall(token, short.call_uuid)).toMatchObject({
      ended_reason: "exceeded-max-duration",
      cost_cents: 0,
      ended_at: new Date(start + 21 * MINUTE).toISOString(),
    });

    await runCron(start + 41 * MINUTE, cronEnv);
    expect(await statuses()).toEqual(["failed", "failed", "failed"]);
    expect(await getCall(token, waiting.call_uuid)).toMatchObject({ ended_reason: "dispatch-timed-out", cost_cents: 0 });
    expect(await getCall(token, long.call_uuid)).toMatchObject({ ended_reason: "exceeded-max-duration", cost_cents: 0 });
    expect((await getWallet(token)).balance_cents).toBe(5000);
    // A late report from the provider cannot complete or charge a closed call.
    vi.spyOn(simulatedProvider, "getCall").mockResolvedValue({
      state: "ended",
      providerCallId: "sim-stuck",
      outcome: { status: "completed", endedReason: "customer-ended-call", startedAt: null, endedAt: new Date().toISOString(), durationSeconds: 120, summary: "late" },
    });
    await deliver([{ body: poll(short.call_uuid) }]);
    expect((await getCall(token, short.call_uuid)).status).toBe("failed");
    expect(await ledgerOf(short.call_uuid)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// Vapi: a fake upstream that speaks the parts of Vapi's call API the adapter uses.

const VAPI_URL = "https://vapi.test";
const VAPI_KEY = "vapi-test-key";

function fakeVapi() {
  const calls = new Map<string, Record<string, unknown>>();
  const requests: { method: string; url: string; authorization: string | null; body: any }[] = [];
  const failures: (number | "network" | "garbage")[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.method === "POST" ? ((await request.json()) as Record<string, unknown>) : undefined;
    requests.push({ method: request.method, url: request.url, authorization: request.headers.get("Authorization"), body });
    const failure = failures.shift();
    if (failure === "network") throw new TypeError("fetch failed");
    if (failure === "garbage") return new Response("<html>oops</html>", { status: 200 });
    if (typeof failure === "number") return Response.json({ message: "upstream says no" }, { status: failure });
    if (request.headers.get("Authorization") !== `Bearer ${VAPI_KEY}`) return Response.json({ message: "Unauthorized" }, { status: 401 });
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/call") {
      const call = { id: `vapi-${crypto.randomUUID()}`, type: "outboundPhoneCall", status: "queued", ...body };
      calls.set(call.id, call);
      return Response.json(call, { status: 201 });
    }
    const match = /^\/call\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && match && calls.has(decodeURIComponent(match[1]!))) return Response.json(calls.get(decodeURIComponent(match[1]!)));
    return Response.json({ message: "Not Found" }, { status: 404 });
  };
  const end = (id: string, fields: Record<string, unknown>) => calls.set(id, { ...(calls.get(id) ?? {}), status: "ended", ...fields });
  return { fetch: fetcher, calls, requests, failures, end };
}

const dialRequest = (overrides: Partial<DialRequest> = {}): DialRequest => ({
  callId: "c0ffee00-0000-4000-8000-000000000001",
  agencyId: "a9e1c0de-0000-4000-8000-000000000002",
  agencyName: "Acme Realty",
  phone: "+14155550123",
  contactName: "Ada Lovelace",
  agent: { id: "agent-1", name: "Ava", providerAgentId: "asst_1" },
  fromNumber: { id: "num-1", number: "+12125550100", providerNumberId: "pn_1" },
  attempt: 1,
  maxDurationSeconds: 1800,
  voicemailBehavior: "hang_up",
  now: new Date().toISOString(),
  ...overrides,
});

/** The poll of a call the fake Vapi placed. */
const pollRequest = (providerCallId: string): PollRequest => ({ ...dialRequest(), providerCallId, startedAt: new Date().toISOString() });

describe("Vapi adapter against a fake upstream", () => {
  it("places the call with the assistant, number and customer, then reports how it ended", async () => {
    const vapi = fakeVapi();
    const provider = createVapiProvider({ apiKey: VAPI_KEY, baseUrl: `${VAPI_URL}/`, fetch: vapi.fetch });
    const started = await provider.startCall(dialRequest());
    expect(started).toEqual({ state: "active", providerCallId: expect.stringMatching(/^vapi-/), pollAfterSeconds: 30 });
    expect(vapi.requests[0]).toEqual({
      method: "POST",
      url: `${VAPI_URL}/call`,
      authorization: `Bearer ${VAPI_KEY}`,
      body: {
        name: "PA c0ffee00-0000-4000-8000-000000000001",
        assistantId: "asst_1",
        phoneNumberId: "pn_1",
        customer: { number: "+14155550123", name: "Ada Lovelace" },
        assistantOverrides: {
          maxDurationSeconds: 1800,
          voicemailDetection: { provider: "vapi" },
          metadata: { call_uuid: "c0ffee00-0000-4000-8000-000000000001", agency_uuid: "a9e1c0de-0000-4000-8000-000000000002" },
        },
      },
    });

    const id = started.providerCallId;
    expect(await provider.getCall(pollRequest(id))).toEqual({ state: "active", providerCallId: id, pollAfterSeconds: 30 });
    vapi.end(id, {
      endedReason: "customer-ended-call",
      startedAt: "2026-11-21T15:00:01Z",
      endedAt: "2026-11-21T15:03:05.400Z",
      analysis: { summary: "Ada wants a showing on Saturday." },
    });
    expect(await provider.getCall(pollRequest(id))).toEqual({
      state: "ended",
      providerCallId: id,
      outcome: {
        status: "completed",
        endedReason: "customer-ended-call",
        startedAt: "2026-11-21T15:00:01.000Z",
        endedAt: "2026-11-21T15:03:05.400Z",
        durationSeconds: 184,
        summary: "Ada wants a showing on Saturday.",
      },
    });
    expect(vapi.requests[2]).toMatchObject({ method: "GET", url: `${VAPI_URL}/call/${id}`, authorization: `Bearer ${VAPI_KEY}` });
  });

  it("reports calls nobody answered as failed", async () => {
    const vapi = fakeVapi();
    const provider = createVapiProvider({ apiKey: VAPI_KEY, baseUrl: VAPI_URL, fetch: vapi.fetch });
    for (const [reason, startedAt] of [
      ["customer-busy", null],
      ["customer-did-not-answer", null],
      ["voicemail", "2026-11-21T15:00:00Z"],
      ["pipeline-error-openai-llm-failed", "2026-11-21T15:00:00Z"],
      ["assistant-ended-call", null],
    ] as const) {
      const { providerCallId } = await provider.startCall(dialRequest());
      vapi.end(providerCallId, { endedReason: reason, startedAt, endedAt: "2026-11-21T15:00:30Z" });
      const state = await provider.getCall(pollRequest(providerCallId));
      expect(state.state === "ended" && state.outcome.status, reason).toBe("failed");
    }
    const { providerCallId } = await provider.startCall(dialRequest());
    vapi.end(providerCallId, { endedReason: "silence-timed-out", startedAt: "2026-11-21T15:00:00Z", endedAt: "2026-11-21T15:00:30Z" });
    const state = await provider.getCall(pollRequest(providerCallId));
    expect(state).toMatchObject({ state: "ended", outcome: { status: "completed", durationSeconds: 30, summary: null } });
  });

  it("takes an instant outside years 0000 to 9999 as missing: no start fails the call, no end is the poll's time", async () => {
    const vapi = fakeVapi();
    const provider = createVapiProvider({ apiKey: VAPI_KEY, baseUrl: VAPI_URL, fetch: vapi.fetch });
    const { providerCallId } = await provider.startCall(dialRequest());
    vapi.end(providerCallId, { endedReason: "customer-ended-call", startedAt: "+010000-01-01T00:00:00Z", endedAt: "+275760-09-13T00:00:00Z" });
    const now = new Date().toISOString();
    const state = await provider.getCall({ ...pollRequest(providerCallId), now });
    expect(state).toMatchObject({ state: "ended", outcome: { status: "failed", startedAt: null, endedAt: now, durationSeconds: 0 } });
  });

  it("treats network errors, 429, 5xx and garbage as retryable, other 4xx and missing ids as final", async () => {
    const vapi = fakeVapi();
    const provider = createVapiProvider({ apiKey: VAPI_KEY, baseUrl: VAPI_URL, fetch: vapi.fetch });
    const outcomes: [number | "network" | "garbage", boolean][] = [
      ["network", true],
      [429, true],
      [500, true],
      [503, true],
      ["garbage", true],
      [400, false],
      [404, false],
    ];
    for (const [failure, retryable] of outcomes) {
      vapi.failures.push(failure);
      const error = await provider.startCall(dialRequest()).catch((e: unknown) => e);
      expect(error, String(failure)).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).retryable, String(failure)).toBe(retryable);
    }
    const wrongKey = createVapiProvider({ apiKey: "wrong", baseUrl: VAPI_URL, fetch: vapi.fetch });
    expect(await wrongKey.startCall(dialRequest()).catch((e: ProviderError) => [e.status, e.retryable])).toEqual([401, false]);

    const before = vapi.requests.length;
    for (const request of [
      dialRequest({ agent: { id: "agent-1", name: "Ava", providerAgentId: null } }),
      dialRequest({ fromNumber: { id: "num-1", number: "+12125550100", providerNumberId: null } }),
    ]) {
      const error = await provider.startCall(request).catch((e: unknown) => e);
      expect((error as ProviderError).retryable).toBe(false);
    }
    expect(vapi.requests.length).toBe(before);
  });

  it("runs a call end to end through the consumer with VOICE_PROVIDER=vapi: dial, poll, complete, charge once", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const agent = await createVoiceAgent(agencyUuid, {
      name: "Vapi Ava",
      provider_agent_id: "asst_live",
      phone_numbers: [{ number: "+12125550142", provider_number_id: "pn_live" }],
    });
    const call = await queuedCall(token, { voice_agent_uuid: agent.agent_uuid, first_name: "Ada", last_name: "Lovelace" });
    const vapi = fakeVapi();
    vi.stubGlobal("fetch", vapi.fetch);
    const { queue, sent } = recordingQueue();
    const vapiEnv = envWith({ VOICE_PROVIDER: "vapi", VAPI_API_KEY: VAPI_KEY, VAPI_BASE_URL: VAPI_URL, CALL_QUEUE: queue });

    await deliver([{ body: dial(call.call_uuid) }], { env: vapiEnv });
    expect(vapi.requests).toHaveLength(1);
    expect(vapi.requests[0]!.body).toMatchObject({ assistantId: "asst_live", phoneNumberId: "pn_live", customer: { number: "+14155550123" } });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "in-progress", ended_at: null });
    expect(sent).toEqual([{ body: poll(call.call_uuid, agencyUuid), delaySeconds: 30 }]);

    // Still ringing: poll again later.
    await deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv });
    expect(sent).toHaveLength(2);

    const providerCallId = (await row(call.call_uuid)).provider_call_id!;
    vapi.end(providerCallId, {
      endedReason: "customer-ended-call",
      startedAt: "2026-11-21T15:00:00.000Z",
      endedAt: "2026-11-21T15:02:01.000Z",
      analysis: { summary: "Booked a showing." },
    });
    // Two polls at once (a redelivery): one completion, one debit.
    await Promise.all([deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv }), deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv })]);
    expect(await getCall(token, call.call_uuid)).toMatchObject({
      status: "completed",
      ended_reason: "customer-ended-call",
      duration_seconds: 121,
      started_at: "2026-11-21T15:00:00.000Z",
      ended_at: "2026-11-21T15:02:01.000Z",
      summary: "Booked a showing.",
      cost_cents: 36,
    });
    expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
    expect(vapi.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("passes the agency's max_call_minutes and voicemail_behavior to Vapi as assistant overrides", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const agent = await createVoiceAgent(agencyUuid, {
      name: "Vapi Ava",
      provider_agent_id: "asst_live",
      phone_numbers: [{ number: "+12125550144", provider_number_id: "pn_live" }],
    });
    await patchSettings(token, { voice: { max_call_minutes: 4, voicemail_behavior: "leave_message" } });
    const call = await queuedCall(token, { voice_agent_uuid: agent.agent_uuid, first_name: "Ada", last_name: "Lovelace" });
    const vapi = fakeVapi();
    vi.stubGlobal("fetch", vapi.fetch);
    const vapiEnv = envWith({ VOICE_PROVIDER: "vapi", VAPI_API_KEY: VAPI_KEY, VAPI_BASE_URL: VAPI_URL, CALL_QUEUE: recordingQueue().queue });
    await deliver([{ body: dial(call.call_uuid) }], { env: vapiEnv });
    expect(vapi.requests[0]!.body.assistantOverrides).toEqual({
      maxDurationSeconds: 240,
      voicemailDetection: { provider: "vapi" },
      voicemailMessage: "Hi Ada Lovelace, this is Vapi Ava from Voice Agency. Sorry we missed you; please call us back at +12125550144. Thank you!",
      metadata: { call_uuid: call.call_uuid, agency_uuid: agencyUuid },
    });

    await patchSettings(token, { voice: { voicemail_behavior: "hang_up" } });
    const second = await queuedCall(token, { voice_agent_uuid: agent.agent_uuid });
    await deliver([{ body: dial(second.call_uuid) }], { env: vapiEnv });
    expect(vapi.requests[1]!.body.assistantOverrides).toEqual({
      maxDurationSeconds: 240,
      voicemailDetection: { provider: "vapi" },
      metadata: { call_uuid: second.call_uuid, agency_uuid: agencyUuid },
    });
  });

  it("retries a dial while Vapi answers 503, without placing a second call", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const agent = await createVoiceAgent(agencyUuid, { provider_agent_id: "asst_live", phone_numbers: [{ number: "+12125550143", provider_number_id: "pn_live" }] });
    const call = await queuedCall(token, { voice_agent_uuid: agent.agent_uuid });
    const vapi = fakeVapi();
    vapi.failures.push(503);
    vi.stubGlobal("fetch", vapi.fetch);
    const { queue } = recordingQueue();
    const vapiEnv = envWith({ VOICE_PROVIDER: "vapi", VAPI_API_KEY: VAPI_KEY, VAPI_BASE_URL: VAPI_URL, CALL_QUEUE: queue });

    const first = await deliver([{ body: dial(call.call_uuid) }], { env: vapiEnv });
    expect(first.retried).toEqual([{ msgId: first.ids[0], delaySeconds: 30 }]);
    expect((await getCall(token, call.call_uuid)).status).toBe("queued");
    await deliver([{ body: dial(call.call_uuid), attempts: 2 }], { env: vapiEnv });
    expect((await getCall(token, call.call_uuid)).status).toBe("in-progress");
    expect(vapi.calls.size).toBe(1);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { simulatedDuration, simulatedProvider, VOICEMAIL_MESSAGE_SECONDS } from "@/integrations/simulators/voice";
import type { DialRequest } from "@/domain/voice-ai/voice-provider";
import { admin, api, expectError } from "../../helpers/http";
import { restoreClock, setClock } from "../../helpers/clock";
import {
  apiWithEnv,
  envWith,
  getCall,
  patchSettings,
  recordingQueue,
  setupVoiceAgency,
  type CallingHours,
  type VoiceAgency,
} from "../../helpers/voice-factories";
import { deliver, dial, poll, runCron } from "../../helpers/voice-queue";
import { dbOf } from "../../helpers/shards";

/**
 * Calling hours in force (docs/decisions/settings-in-force.md): every scenario pins the clock, so
 * the expected instants are written out by hand. New York is UTC-5 in December (EST) and
 * UTC-4 from 2027-03-14 03:00 local (EDT). 2026-12-02 is a Wednesday.
 */

const OFFICE: CallingHours = { start: "09:00", end: "19:00" };
const at = (iso: string) => Date.parse(iso);

afterEach(() => {
  vi.restoreAllMocks();
  restoreClock();
});

/** An agency created at `now` (fake clock) with the given calling hours, and a queue that records what is sent. */
async function agencyAt(now: string, callingHours: CallingHours) {
  setClock(now);
  const agency = await setupVoiceAgency({ callingHours });
  const recorder = recordingQueue();
  const customEnv = envWith({ CALL_QUEUE: recorder.queue });
  const create = (body: Record<string, unknown> = {}) =>
    apiWithEnv(customEnv, "POST", "/voice-ai/calls", agency.token, { phone: "+14155550123", ...body });
  const mine = (callUuid: string) => recorder.sent.filter((m) => m.body.call_id === callUuid);
  return { agency, create, customEnv, sent: recorder.sent, mine };
}

/** Creates a call and expects 201. */
async function created(create: (body?: Record<string, unknown>) => Promise<{ status: number; body: any }>, body: Record<string, unknown> = {}) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.call as Record<string, any>;
}

const OUTSIDE = "scheduled_at must fall within calling hours";

describe("calls and the agency's calling hours", () => {
  it("holds a call made at night until the next opening, sends nothing until then, and dials it when the cron runs after the opening", async () => {
    // 00:52 in New York: the call the issue was filed about.
    const { agency, create, customEnv, mine } = await agencyAt("2026-12-02T05:52:00.000Z", OFFICE);
    const call = await created(create);
    expect(call).toMatchObject({ status: "scheduled", scheduled_at: null, dispatch_at: "2026-12-02T14:00:00.000Z", started_at: null });
    expect(mine(call.call_uuid)).toEqual([]);
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    // Cron runs through the night send nothing; a stray dial message does not dial it.
    for (const iso of ["2026-12-02T05:53:00.000Z", "2026-12-02T10:00:00.000Z", "2026-12-02T13:58:00.000Z"]) await runCron(at(iso), customEnv);
    expect(mine(call.call_uuid)).toEqual([]);
    setClock("2026-12-02T13:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).not.toHaveBeenCalled();
    expect((await getCall(agency.token, call.call_uuid)).status).toBe("scheduled");

    // The run before the opening sends it with the remaining delay; at the opening it dials.
    await runCron(at("2026-12-02T13:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid)).toEqual([{ body: dial(call.call_uuid, agency.agencyUuid), delaySeconds: 30 }]);
    setClock("2026-12-02T14:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).toHaveBeenCalledTimes(1);
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({
      status: "in-progress",
      dispatch_at: null,
      started_at: "2026-12-02T14:00:00.000Z",
    });
  });

  it("holds a delayed call that falls due after closing, and leaves one due inside the window alone", async () => {
    // 18:30 in New York.
    const { agency, create, mine } = await agencyAt("2026-12-02T23:30:00.000Z", OFFICE);
    const inside = await created(create, { delay_seconds: 1200 });
    expect(inside).toMatchObject({ status: "queued", scheduled_at: "2026-12-02T23:50:00.000Z", dispatch_at: null });
    expect(mine(inside.call_uuid)).toEqual([{ body: dial(inside.call_uuid, agency.agencyUuid), delaySeconds: 1200 }]);
    const after = await created(create, { delay_seconds: 3600 });
    expect(after).toMatchObject({ status: "scheduled", scheduled_at: "2026-12-03T00:30:00.000Z", dispatch_at: "2026-12-03T14:00:00.000Z" });
    expect(mine(after.call_uuid)).toEqual([]);
  });

  it("answers 400 for a scheduled_at outside the window, naming it, and creates nothing", async () => {
    const { agency, create } = await agencyAt("2026-12-02T15:00:00.000Z", OFFICE);
    for (const scheduledAt of ["2026-12-03T08:59", "2026-12-03T19:00", "2026-12-03T23:30", "2026-12-03T13:59:00Z"]) {
      expectError(await create({ scheduled_at: scheduledAt }), 400, `${OUTSIDE} 09:00-19:00 America/New_York`, "validation_error");
    }
    expect(await created(create, { scheduled_at: "2026-12-03T09:00" })).toMatchObject({
      status: "queued",
      scheduled_at: "2026-12-03T14:00:00.000Z",
      dispatch_at: null,
    });
    expect(await created(create, { scheduled_at: "2026-12-03T18:59" })).toMatchObject({ scheduled_at: "2026-12-03T23:59:00.000Z" });
    expect((await api("GET", "/voice-ai/calls", { token: agency.token })).body.pagination.total).toBe(2);
  });

  it("runs a window past midnight: open after 22:00 and before 02:00, held in between", async () => {
    const night: CallingHours = { start: "22:00", end: "02:00" };
    // 21:30 in New York: held until 22:00.
    const { create } = await agencyAt("2026-12-03T02:30:00.000Z", night);
    expect(await created(create)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-03T03:00:00.000Z" });
    expect(await created(create, { scheduled_at: "2026-12-03T01:30" })).toMatchObject({ status: "queued", scheduled_at: "2026-12-03T06:30:00.000Z" });
    expectError(await create({ scheduled_at: "2026-12-03T02:30" }), 400, `${OUTSIDE} 22:00-02:00 America/New_York`);
    expectError(await create({ scheduled_at: "2026-12-03T21:59" }), 400, `${OUTSIDE} 22:00-02:00 America/New_York`);
    // 00:30: inside the window that opened the evening before.
    setClock("2026-12-03T05:30:00.000Z");
    expect(await created(create)).toMatchObject({ status: "queued", dispatch_at: null });
  });

  it("skips days off: a Friday evening call waits for Monday, a Saturday scheduled_at is 400 naming the days", async () => {
    const weekdays: CallingHours = { ...OFFICE, days: [1, 2, 3, 4, 5] };
    // Friday 2026-12-04, 19:30 in New York.
    const { create, mine } = await agencyAt("2026-12-05T00:30:00.000Z", weekdays);
    const call = await created(create);
    // More than 24 hours away: held for the cron, nothing sent.
    expect(call).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-07T14:00:00.000Z" });
    expect(mine(call.call_uuid)).toEqual([]);
    expectError(
      await create({ scheduled_at: "2026-12-05T10:00" }),
      400,
      `${OUTSIDE} 09:00-19:00 America/New_York on Monday, Tuesday, Wednesday, Thursday, Friday`,
    );
  });

  it("reads the window in the calling timezone: changing it holds calls that are now at night there", async () => {
    // 10:00 in New York is midnight in Tokyo (UTC+9, no DST).
    const { agency, create } = await agencyAt("2026-12-02T15:00:00.000Z", OFFICE);
    const waiting = await created(create, { delay_seconds: 7200 });
    expect(waiting).toMatchObject({ status: "queued", dispatch_at: null });
    const scheduled = await created(create, { scheduled_at: "2026-12-02T18:00" });
    await patchSettings(agency.token, { calling_timezone: "Asia/Tokyo" });
    // 09:00 in Tokyo on 2026-12-03 is 00:00Z.
    expect(await created(create)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-03T00:00:00.000Z" });
    expectError(await create({ scheduled_at: "2026-12-03T08:00" }), 400, `${OUTSIDE} 09:00-19:00 Asia/Tokyo`);
    expect(await created(create, { scheduled_at: "2026-12-03T09:00" })).toMatchObject({ scheduled_at: "2026-12-03T00:00:00.000Z" });
    // Queued calls are checked when they are dialed (see below), not moved.
    expect((await getCall(agency.token, waiting.call_uuid)).status).toBe("queued");
    expect((await getCall(agency.token, scheduled.call_uuid)).status).toBe("queued");
  });

  it("opens at 09:00 local on the spring-forward day (13:00Z, not 14:00Z)", async () => {
    // Sunday 2027-03-14, 00:00 EST; clocks jump at 02:00.
    const { create } = await agencyAt("2027-03-14T05:00:00.000Z", OFFICE);
    expect(await created(create)).toMatchObject({ status: "scheduled", dispatch_at: "2027-03-14T13:00:00.000Z" });
    expect(await created(create, { scheduled_at: "2027-03-14T09:00" })).toMatchObject({ scheduled_at: "2027-03-14T13:00:00.000Z" });
    expectError(await create({ scheduled_at: "2027-03-14T08:30" }), 400, `${OUTSIDE} 09:00-19:00 America/New_York`);
  });
});

describe("calling hours at the moment of dialing", () => {
  it("holds a queued call whose window closed after it was created, then dials it in the new window", async () => {
    // 10:00 in New York; the call is due at 11:00.
    const { agency, create, customEnv, mine } = await agencyAt("2026-12-02T15:00:00.000Z", OFFICE);
    const call = await created(create, { delay_seconds: 3600 });
    expect(call).toMatchObject({ status: "queued", dispatch_at: null });
    await patchSettings(agency.token, { calling_hours: { start: "13:00", end: "17:00" } });
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    setClock("2026-12-02T16:00:00.000Z");
    const { ids, result } = await deliver([{ body: dial(call.call_uuid) }]);
    expect(result.explicitAcks).toEqual(ids);
    expect(startCall).not.toHaveBeenCalled();
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T18:00:00.000Z" });

    // Sent once when created; again only by the run before the new opening.
    await runCron(at("2026-12-02T17:00:00.000Z"), customEnv);
    expect(mine(call.call_uuid)).toHaveLength(1);
    await runCron(at("2026-12-02T17:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid).slice(1)).toEqual([{ body: dial(call.call_uuid, agency.agencyUuid), delaySeconds: 30 }]);
    setClock("2026-12-02T18:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).toHaveBeenCalledTimes(1);
    expect((await getCall(agency.token, call.call_uuid)).status).toBe("in-progress");
  });

  it("moves calls waiting for their opening when the hours change: later for narrower hours, at once for wider ones", async () => {
    const { agency, create, customEnv, mine } = await agencyAt("2026-12-02T05:52:00.000Z", OFFICE);
    const call = await created(create);
    const delayed = await created(create, { delay_seconds: 3600 });
    expect([call.dispatch_at, delayed.dispatch_at]).toEqual(["2026-12-02T14:00:00.000Z", "2026-12-02T14:00:00.000Z"]);
    const startCall = vi.spyOn(simulatedProvider, "startCall");

    await patchSettings(agency.token, { calling_hours: { start: "11:00", end: "17:00" } });
    for (const c of [call, delayed]) {
      expect(await getCall(agency.token, c.call_uuid)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T16:00:00.000Z" });
    }
    await runCron(at("2026-12-02T13:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid)).toEqual([]);

    // Still before the new opening, the agency opens all night: both go out now (the
    // delayed one at its own due time, 06:52Z), with the next cron run.
    setClock("2026-12-02T06:10:00.000Z");
    await patchSettings(agency.token, { calling_hours: { start: "00:00", end: "24:00" } });
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T06:10:00.000Z" });
    expect(await getCall(agency.token, delayed.call_uuid)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T06:52:00.000Z" });
    await runCron(at("2026-12-02T06:10:00.000Z"), customEnv);
    expect(mine(call.call_uuid)).toEqual([{ body: dial(call.call_uuid, agency.agencyUuid), delaySeconds: 0 }]);
    expect(mine(delayed.call_uuid)).toEqual([]);
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).toHaveBeenCalledTimes(1);
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({ status: "in-progress", dispatch_at: null });
  });

  it("holds a held call again at dial time when the hours changed after the cron queued it", async () => {
    const { agency, create, customEnv, mine } = await agencyAt("2026-12-02T05:52:00.000Z", OFFICE);
    const call = await created(create);
    await runCron(at("2026-12-02T13:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid)).toHaveLength(1);
    expect((await getCall(agency.token, call.call_uuid)).status).toBe("queued");
    // Queued calls are not moved by the change; the consumer checks the window when it dials.
    await patchSettings(agency.token, { calling_hours: { start: "11:00", end: "17:00" } });
    const startCall = vi.spyOn(simulatedProvider, "startCall");
    setClock("2026-12-02T14:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).not.toHaveBeenCalled();
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T16:00:00.000Z" });

    await runCron(at("2026-12-02T15:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid)).toHaveLength(2);
    setClock("2026-12-02T16:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(startCall).toHaveBeenCalledTimes(1);
  });

  it("holds the retry of a failed dial that would fall after closing until the next opening", async () => {
    // 18:59:50 in New York; 0008 fails on the first attempt only, and the retry is due 30 s later.
    const { agency, create, customEnv, mine } = await agencyAt("2026-12-02T23:59:50.000Z", OFFICE);
    const call = await created(create, { phone: "+14155550008" });
    const startCall = vi.spyOn(simulatedProvider, "startCall");
    const { ids, result, retried } = await deliver([{ body: dial(call.call_uuid) }]);
    expect(retried).toEqual([]);
    expect(result.explicitAcks).toEqual(ids);
    expect(startCall).toHaveBeenCalledTimes(1);
    expect(await getCall(agency.token, call.call_uuid)).toMatchObject({
      status: "scheduled",
      dispatch_at: "2026-12-03T14:00:00.000Z",
      started_at: null,
    });

    await runCron(at("2026-12-03T13:59:30.000Z"), customEnv);
    expect(mine(call.call_uuid).at(-1)).toEqual({ body: dial(call.call_uuid, agency.agencyUuid), delaySeconds: 30 });
    setClock("2026-12-03T14:00:00.000Z");
    await deliver([{ body: dial(call.call_uuid), attempts: 2 }]);
    expect(startCall).toHaveBeenCalledTimes(2);
    expect((startCall.mock.calls[1]![0] as DialRequest).attempt).toBe(2);
    expect((await getCall(agency.token, call.call_uuid)).status).toBe("in-progress");
  });
});

describe("voice settings at the moment of dialing", () => {
  /** An agency with calling hours always open, its call dialed now; returns the provider's request. */
  async function dialed(agency: VoiceAgency, body: Record<string, unknown> = {}) {
    const recorder = recordingQueue();
    const res = await apiWithEnv(envWith({ CALL_QUEUE: recorder.queue }), "POST", "/voice-ai/calls", agency.token, { phone: "+14155550123", ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const startCall = vi.spyOn(simulatedProvider, "startCall");
    await deliver([{ body: dial(res.body.call.call_uuid) }]);
    const request = startCall.mock.calls.at(-1)![0] as DialRequest;
    startCall.mockRestore();
    return { call: res.body.call as Record<string, any>, request };
  }

  it("tells the provider the agency's max_call_minutes and voicemail_behavior, read when the call is dialed", async () => {
    const agency = await setupVoiceAgency();
    expect((await dialed(agency)).request).toMatchObject({ maxDurationSeconds: 600, voicemailBehavior: "hang_up" });
    await patchSettings(agency.token, { voice: { max_call_minutes: 3, voicemail_behavior: "leave_message" } });
    expect((await dialed(agency)).request).toMatchObject({ maxDurationSeconds: 180, voicemailBehavior: "leave_message" });
  });

  it("places calls that name no agent with the default agent from settings, and answers 400 while it is inactive or gone", async () => {
    const agency = await setupVoiceAgency();
    const second = (
      await admin("POST", `/agencies/${agency.agencyUuid}/voice-agents`, { name: "Bea", phone_numbers: ["+16465550177"] })
    ).body.agent as VoiceAgency["agent"];
    await patchSettings(agency.token, { voice: { default_voice_agent_uuid: second.agent_uuid } });

    const byDefault = await dialed(agency);
    expect(byDefault.call).toMatchObject({ voice_agent_uuid: second.agent_uuid, outbound_phone_number_uuid: second.phone_numbers[0]!.outbound_phone_number_uuid });
    expect(byDefault.request.agent.name).toBe("Bea");
    // A request that names an agent or a number still gets that one.
    expect((await dialed(agency, { voice_agent_uuid: agency.agent.agent_uuid })).call.voice_agent_uuid).toBe(agency.agent.agent_uuid);
    expect((await dialed(agency, { outbound_phone_number_uuid: agency.numberUuid })).call.voice_agent_uuid).toBe(agency.agent.agent_uuid);

    const count = async () => (await api("GET", "/voice-ai/calls", { token: agency.token })).body.pagination.total as number;
    const before = await count();
    const db = await dbOf(agency.agencyUuid);
    await db.prepare("UPDATE voice_agents SET status = 'inactive' WHERE id = ?").bind(second.agent_uuid).run();
    expectError(
      await api("POST", "/voice-ai/calls", { token: agency.token, body: { phone: "+14155550123" } }),
      400,
      "voice.default_voice_agent_uuid (GET /settings) names an inactive Voice AI agent: send voice_agent_uuid, or change the setting with PATCH /settings",
      "validation_error",
    );
    await db.batch([
      db.prepare("DELETE FROM voice_phone_numbers WHERE agent_id = ?").bind(second.agent_uuid),
      db.prepare("DELETE FROM voice_agents WHERE id = ?").bind(second.agent_uuid),
    ]);
    expectError(
      await api("POST", "/voice-ai/calls", { token: agency.token, body: { phone: "+14155550123" } }),
      400,
      "voice.default_voice_agent_uuid (GET /settings) names a Voice AI agent that no longer exists: send voice_agent_uuid, or change the setting with PATCH /settings",
    );
    expect(await count()).toBe(before);
    // Naming an agent still works; clearing the setting brings back the oldest active agent.
    expect((await dialed(agency, { voice_agent_uuid: agency.agent.agent_uuid })).call.status).toBe("queued");
    await patchSettings(agency.token, { voice: { default_voice_agent_uuid: null } });
    expect((await dialed(agency)).call.voice_agent_uuid).toBe(agency.agent.agent_uuid);
  });

  it("caps a simulated call at max_call_minutes: it talks exactly that long and ends exceeded-max-duration", async () => {
    const agency = await setupVoiceAgency();
    await patchSettings(agency.token, { voice: { max_call_minutes: 1 } });
    // Simulated talk lasts 35 to 300 s by call id: find a call that would talk past the minute.
    let dialedCall: Record<string, any> | undefined;
    for (let i = 0; i < 20 && !dialedCall; i++) {
      const start = Date.now();
      setClock(start);
      const { call } = await dialed(agency);
      if (simulatedDuration(call.call_uuid) > 60) dialedCall = { ...call, dialedAt: start };
    }
    expect(dialedCall, "a call longer than a minute among 20").toBeDefined();
    const { call_uuid: id, dialedAt } = dialedCall!;
    setClock(dialedAt + 59_000);
    await deliver([{ body: poll(id) }]);
    expect((await getCall(agency.token, id)).status).toBe("in-progress");
    setClock(dialedAt + 61_000);
    await deliver([{ body: poll(id) }]);
    expect(await getCall(agency.token, id)).toMatchObject({
      status: "completed",
      ended_reason: "exceeded-max-duration",
      duration_seconds: 60,
      started_at: new Date(dialedAt).toISOString(),
      ended_at: new Date(dialedAt + 60_000).toISOString(),
      cost_cents: 12,
    });
  });

  it("hangs up on voicemail, or leaves a message first with leave_message; neither costs anything", async () => {
    const agency = await setupVoiceAgency();
    const hungUp = await dialed(agency, { phone: "+14155550004" });
    expect(await getCall(agency.token, hungUp.call.call_uuid)).toMatchObject({
      status: "failed",
      ended_reason: "voicemail",
      duration_seconds: 0,
      started_at: null,
      summary: null,
      cost_cents: 0,
    });

    // The message names the agency (its agency_name) and the number to call back.
    await patchSettings(agency.token, { agency_name: "Acme Realty", voice: { voicemail_behavior: "leave_message" } });
    const dialedAt = Date.now();
    setClock(dialedAt);
    const message = await dialed(agency, { phone: "+14155550004" });
    expect((await getCall(agency.token, message.call.call_uuid)).status).toBe("in-progress");
    setClock(dialedAt + VOICEMAIL_MESSAGE_SECONDS * 1000);
    await deliver([{ body: poll(message.call.call_uuid) }]);
    const done = await getCall(agency.token, message.call.call_uuid);
    expect(done).toMatchObject({
      status: "failed",
      ended_reason: "voicemail",
      duration_seconds: VOICEMAIL_MESSAGE_SECONDS,
      started_at: new Date(dialedAt).toISOString(),
      ended_at: new Date(dialedAt + VOICEMAIL_MESSAGE_SECONDS * 1000).toISOString(),
      cost_cents: 0,
    });
    expect(done.summary).toBe(
      `Ava reached the voicemail of the contact and left a message: "Hi, this is Ava from Acme Realty. Sorry we missed you; please call us back at ${agency.agent.phone_numbers[0]!.number}. Thank you!"`,
    );
    expect((await api("GET", "/voice-ai/wallet", { token: agency.token })).body.wallet.balance_cents).toBe(5000);
  });
});

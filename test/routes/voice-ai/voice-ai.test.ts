import { dbOf } from "../../helpers/shards";
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import type { Env } from "@/env";
import { admin, api, BASE, expectError } from "../../helpers/http";
import { createAgency, setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import {
  ALWAYS_OPEN,
  apiWithEnv,
  callerId,
  createCall,
  createVoiceAgent,
  creditWallet,
  envWith,
  finishCall,
  getCall,
  getWallet,
  ledgerOf,
  patchSettings,
  recordingQueue,
  setupVoiceAgency,
} from "../../helpers/voice-factories";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const PHONE_MESSAGE = "phone must be a 10-digit US number or E.164 (e.g. +14155550123)";
const DELAY_MESSAGE = "delay_seconds must be an integer from 0 to 86400";
const SCHEDULED_FORMAT =
  "scheduled_at must be a wall-clock time YYYY-MM-DDTHH:MM[:SS] in the agency's calling timezone, or an ISO 8601 time with an offset";
const HOUR = 3_600_000;
const DAY = 86_400_000;

const CALL_KEYS = [
  "call_uuid",
  "contact_uuid",
  "contact_name",
  "phone",
  "direction",
  "status",
  "ended_reason",
  "duration_seconds",
  "voice_agent_uuid",
  "outbound_phone_number_uuid",
  "scheduled_at",
  "dispatch_at",
  "started_at",
  "ended_at",
  "summary",
  "cost_cents",
  "created_at",
  "updated_at",
].sort();

const listCalls = (token: string, query = "") => api("GET", `/voice-ai/calls${query}`, { token });
const uuidsOf = (res: { body: any }) => res.body.calls.map((c: any) => c.call_uuid);

/** `YYYY-MM-DDTHH:MM` of a UTC instant shifted by a fixed offset (hours). */
const wallClockAt = (instant: number, offsetHours: number) => new Date(instant + offsetHours * HOUR).toISOString().slice(0, 16);

// ---------------------------------------------------------------------------------------
// Daylight saving transitions, computed by hand from the zones' rules (not through the code
// under test): New York springs forward on the second Sunday of March at 02:00 (-05:00 ->
// -04:00) and falls back on the first Sunday of November at 02:00 (-04:00 -> -05:00);
// Sydney springs forward on the first Sunday of October at 02:00 (+10:00 -> +11:00) and
// falls back on the first Sunday of April at 03:00 (+11:00 -> +10:00). Two hemispheres, so
// one of each kind is always a few months ahead.

interface Transition {
  zone: string;
  /** The local date of the change, YYYY-MM-DD. */
  date: string;
  offsetBefore: number;
  offsetAfter: number;
  /** A wall-clock time (HH:MM) inside the gap or the overlap. */
  inside: string;
}

const nthSunday = (year: number, month: number, n: number) => {
  const firstDay = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return new Date(Date.UTC(year, month, 1 + ((7 - firstDay) % 7) + 7 * (n - 1)));
};
const ymd = (d: Date) => d.toISOString().slice(0, 10);
/** The UTC instant of a wall-clock time at a fixed offset. */
const utcOf = (date: string, time: string, offsetHours: number) => Date.parse(`${date}T${time}:00.000Z`) - offsetHours * HOUR;
const shiftDate = (date: string, days: number) => ymd(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY));

function nextTransition(kind: "gap" | "overlap"): Transition {
  const year = new Date().getUTCFullYear();
  const candidates: Transition[] = [];
  for (const y of [year, year + 1]) {
    if (kind === "gap") {
      candidates.push({ zone: "America/New_York", date: ymd(nthSunday(y, 2, 2)), offsetBefore: -5, offsetAfter: -4, inside: "02:30" });
      candidates.push({ zone: "Australia/Sydney", date: ymd(nthSunday(y, 9, 1)), offsetBefore: 10, offsetAfter: 11, inside: "02:30" });
    } else {
      candidates.push({ zone: "America/New_York", date: ymd(nthSunday(y, 10, 1)), offsetBefore: -4, offsetAfter: -5, inside: "01:30" });
      candidates.push({ zone: "Australia/Sydney", date: ymd(nthSunday(y, 3, 1)), offsetBefore: 11, offsetAfter: 10, inside: "02:30" });
    }
  }
  // The day before at 10:00 must still be ahead, so every time the tests use is in the future.
  const ahead = candidates.filter((t) => utcOf(shiftDate(t.date, -1), "10:00", t.offsetBefore) > Date.now() + HOUR);
  ahead.sort((a, b) => a.date.localeCompare(b.date));
  return ahead[0]!;
}

/** A request with the benchmark's D1 metrics on: rows read and round trips of this one request. */
async function measured(customEnv: Env, method: string, path: string, token: string, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}/api/v2${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        "X-Bench-Rows-Read": "1",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { ...customEnv, BENCH_METRICS: "on" },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    body: (await res.json()) as any,
    rowsRead: Number(res.headers.get("X-Bench-Rows-Read")),
    roundTrips: Number(res.headers.get("X-Bench-D1-Round-Trips")),
  };
}

let fillerRound = 0;
/** `count` contacts (with phones) and as many completed calls, written straight to D1. */
async function addUnrelatedRows(agencyUuid: string, count = 300) {
  const round = fillerRound++;
  const now = Date.now();
  const db = await dbOf(agencyUuid);
  const contact = db.prepare(
    `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
     VALUES (?, ?, 'Filler', 'Contact', ?, ?, '[]', NULL, NULL, '{}', ?, ?, NULL)`,
  );
  const call = db.prepare(
    `INSERT INTO voice_calls (id, agency_id, contact_id, contact_name, phone, direction, status, ended_reason, duration_seconds,
       agent_id, phone_number_id, scheduled_at, due_at, attempts, started_at, ended_at, summary, cost_cents, created_at, updated_at)
     VALUES (?, ?, ?, 'Filler Contact', ?, 'outbound', 'completed', 'customer-ended-call', 60, NULL, NULL, NULL, ?, 1, ?, ?, NULL, 12, ?, ?)`,
  );
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const phone = `+1303${String(round * 10_000 + i).padStart(7, "0")}`;
    const at = new Date(now - (count - i) * 1000).toISOString();
    statements.push(contact.bind(id, agencyUuid, `filler-${round}-${i}@example.com`, phone, at, at));
    statements.push(call.bind(crypto.randomUUID(), agencyUuid, id, phone, at, at, at, at, at));
  }
  await db.batch(statements);
}

// ---------------------------------------------------------------------------------------

describe("GET /voice-ai/agents", () => {
  it("lists agents oldest first with their numbers, exact fields and pagination", async () => {
    const { agencyUuid, token } = await setupAgency();
    const first = await createVoiceAgent(agencyUuid, { name: "Ava", phone_numbers: ["(212) 555-0100", "+12125550101"] });
    const second = await createVoiceAgent(agencyUuid, { name: "Ben", phone_numbers: [] });
    const third = await createVoiceAgent(agencyUuid, { name: "Cleo", status: "inactive" });

    const res = await api("GET", "/voice-ai/agents", { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.agents.map((a: any) => a.agent_uuid)).toEqual([first.agent_uuid, second.agent_uuid, third.agent_uuid]);
    expect(res.body.agents[0]).toEqual({
      agent_uuid: first.agent_uuid,
      name: "Ava",
      status: "active",
      phone_numbers: [
        { outbound_phone_number_uuid: first.phone_numbers[0]!.outbound_phone_number_uuid, number: "+12125550100" },
        { outbound_phone_number_uuid: first.phone_numbers[1]!.outbound_phone_number_uuid, number: "+12125550101" },
      ],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.body.agents[1].phone_numbers).toEqual([]);
    expect(res.body.agents[2].status).toBe("inactive");
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await api("GET", "/voice-ai/agents?page=2&limit=2", { token });
    expect(page2.body.agents.map((a: any) => a.agent_uuid)).toEqual([third.agent_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("reads a page with its agents' numbers in one D1 round trip, each number under its own agent", async () => {
    const { agencyUuid, token } = await setupAgency();
    const first = await createVoiceAgent(agencyUuid, { name: "Ava", phone_numbers: ["+12125550100"] });
    const second = await createVoiceAgent(agencyUuid, { name: "Ben", phone_numbers: ["+12125550102", "+12125550103"] });
    const third = await createVoiceAgent(agencyUuid, { name: "Cleo", phone_numbers: ["+12125550104"] });
    const other = await setupAgency();
    await createVoiceAgent(other.agencyUuid, { name: "Dora", phone_numbers: ["+12125550102"] });

    const all = await measured(env, "GET", "/voice-ai/agents", token);
    expect(all.status).toBe(200);
    expect(all.roundTrips).toBe(1);
    expect(all.body.agents.map((a: any) => a.phone_numbers.map((n: any) => n.number))).toEqual([
      ["+12125550100"],
      ["+12125550102", "+12125550103"],
      ["+12125550104"],
    ]);
    expect(all.body.agents.map((a: any) => a.agent_uuid)).toEqual([first.agent_uuid, second.agent_uuid, third.agent_uuid]);

    const middle = await measured(env, "GET", "/voice-ai/agents?page=2&limit=1", token);
    expect(middle.roundTrips).toBe(1);
    expect(middle.body.agents).toEqual([all.body.agents[1]]);
    expect(middle.body.pagination).toEqual({ page: 2, limit: 1, total: 3, next_cursor: expect.any(String) });
    const beyond = await measured(env, "GET", "/voice-ai/agents?page=4&limit=1", token);
    expect(beyond.roundTrips).toBe(1);
    expect(beyond.body.agents).toEqual([]);

    const one = await measured(env, "GET", `/voice-ai/agents/${second.agent_uuid.toUpperCase()}`, token);
    expect(one.status).toBe(200);
    expect(one.roundTrips).toBe(1);
    expect(one.body.agent).toEqual(all.body.agents[1]);
    const missing = await measured(env, "GET", `/voice-ai/agents/${RANDOM_UUID}`, token);
    expect(missing.status).toBe(404);
    expect(missing.roundTrips).toBe(1);
  });

  it("never lists another agency's agents", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    await createVoiceAgent(other.agencyUuid);
    const res = await api("GET", "/voice-ai/agents", { token });
    expect(res.body.agents).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid pagination", async () => {
    const { token } = await setupAgency();
    expectError(await api("GET", "/voice-ai/agents?limit=0", { token }), 400, /limit/, "validation_error");
    expectError(await api("GET", "/voice-ai/agents?page=abc", { token }), 400, /page/, "validation_error");
  });
});

describe("GET /voice-ai/agents/{agent_uuid}", () => {
  it("returns the agent with its numbers, also for an upper-case uuid", async () => {
    const { agencyUuid, token } = await setupAgency();
    const agent = await createVoiceAgent(agencyUuid, { name: "Ava", phone_numbers: ["+12125550100"] });
    const listed = (await api("GET", "/voice-ai/agents", { token })).body.agents[0];
    for (const uuid of [agent.agent_uuid, agent.agent_uuid.toUpperCase()]) {
      const res = await api("GET", `/voice-ai/agents/${uuid}`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, agent: listed });
    }
  });

  it("rejects a malformed agent_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("GET", "/voice-ai/agents/not-a-uuid", { token }), 400, "agent_uuid must be a UUID", "validation_error");
  });

  it("answers 404 for a random uuid and for another agency's agent", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const foreign = await createVoiceAgent(other.agencyUuid);
    for (const uuid of [RANDOM_UUID, foreign.agent_uuid]) {
      expectError(await api("GET", `/voice-ai/agents/${uuid}`, { token }), 404, "Voice agent not found", "not_found");
    }
  });
});

describe("POST /voice-ai/calls", () => {
  it("creates a queued call with every field of the specification, the default agent and number, and a new contact", async () => {
    const { token, agent, numberUuid } = await setupVoiceAgency();
    const before = Date.now();
    const res = await api("POST", "/voice-ai/calls", { token, body: { phone: "(415) 555-0123", first_name: "Ada", last_name: "Lovelace" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const call = res.body.call;
    expect(Object.keys(call).sort()).toEqual(CALL_KEYS);
    expect(call).toMatchObject({
      contact_name: "Ada Lovelace",
      phone: "+14155550123",
      direction: "outbound",
      status: "queued",
      ended_reason: null,
      duration_seconds: null,
      voice_agent_uuid: agent.agent_uuid,
      outbound_phone_number_uuid: numberUuid,
      scheduled_at: null,
      started_at: null,
      ended_at: null,
      summary: null,
      cost_cents: null,
    });
    expect(call.call_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(call.created_at).toMatch(ISO);
    expect(Date.parse(call.created_at)).toBeGreaterThanOrEqual(before - 1000);

    // The contact exists, with the call's phone, and the call is listed.
    const contact = await api("GET", `/contacts/${call.contact_uuid}`, { token });
    expect(contact.status).toBe(200);
    expect(contact.body.contact).toMatchObject({ first_name: "Ada", last_name: "Lovelace", phone: "+14155550123", source: "voice-ai" });
    const listed = await listCalls(token);
    expect(uuidsOf(listed)).toEqual([call.call_uuid]);
  });

  it("accepts an E.164 number from outside the US and returns it in E.164", async () => {
    const { token } = await setupVoiceAgency();
    const call = await createCall(token, { phone: "+44 7911 123456" });
    expect(call.phone).toBe("+447911123456");
  });

  it("rejects a missing or malformed phone with the specification's message", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await api("POST", "/voice-ai/calls", { token, body: {} }), 400, "phone is required", "validation_error");
    expectError(await api("POST", "/voice-ai/calls", { token, body: { first_name: "Ada", last_name: "L" } }), 400, "phone is required");
    for (const phone of ["12345", "555-0123", "+1415555012345678", "not a phone"]) {
      expectError(await api("POST", "/voice-ai/calls", { token, body: { phone } }), 400, PHONE_MESSAGE, "validation_error");
    }
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: 4155550123 } }), 400, /phone/, "validation_error");
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });

  it("rejects unknown fields, malformed JSON and a missing body", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", priority: "high" } }), 400, "Unknown field: priority");
    expectError(await api("POST", "/voice-ai/calls", { token, rawBody: "{", headers: { "Content-Type": "application/json" } }), 400);
    expectError(await api("POST", "/voice-ai/calls", { token }), 400);
  });

  it("takes every boundary of delay_seconds: 0 and 86400 are sent with that delay, the rest are 400", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const { queue, sent } = recordingQueue();
    const customEnv = envWith({ CALL_QUEUE: queue });

    const now = await apiWithEnv(customEnv, "POST", "/voice-ai/calls", token, { phone: "+14155550123", delay_seconds: 0 });
    expect(now.status).toBe(201);
    expect(now.body.call).toMatchObject({ status: "queued", scheduled_at: null });

    const before = Date.now();
    const day = await apiWithEnv(customEnv, "POST", "/voice-ai/calls", token, { phone: "+14155550123", delay_seconds: 86_400 });
    expect(day.status).toBe(201);
    expect(day.body.call.status).toBe("queued");
    const due = Date.parse(day.body.call.scheduled_at);
    expect(due).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 86_400_000);

    expect(sent).toEqual([
      { body: { type: "dial", call_id: now.body.call.call_uuid, agency_id: agencyUuid }, delaySeconds: 0 },
      { body: { type: "dial", call_id: day.body.call.call_uuid, agency_id: agencyUuid }, delaySeconds: 86_400 },
    ]);

    for (const delay of [-1, 86_401, 1.5, "10", "0", true, 1e20]) {
      const res = await apiWithEnv(customEnv, "POST", "/voice-ai/calls", token, { phone: "+14155550123", delay_seconds: delay });
      expect(res.status, `delay_seconds ${JSON.stringify(delay)}`).toBe(400);
      expect(res.body).toEqual({ success: false, error: DELAY_MESSAGE, code: "validation_error", details: expect.any(Array) });
    }
    expect(sent).toHaveLength(2);
    expect((await listCalls(token)).body.pagination.total).toBe(2);
  });

  it("treats a delay above 0 as scheduled: scheduled_at is the due instant", async () => {
    const { token } = await setupVoiceAgency();
    const before = Date.now();
    const call = await createCall(token, { delay_seconds: 600 });
    expect(call.status).toBe("queued");
    expect(Date.parse(call.scheduled_at)).toBeGreaterThanOrEqual(before + 600_000);
    expect(Date.parse(call.scheduled_at)).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  it("reads scheduled_at as wall-clock time in the agency's calling timezone", async () => {
    // Tokyo has no daylight saving time: always +09:00.
    const { token } = await setupVoiceAgency({ timezone: "Asia/Tokyo" });
    const due = Date.now() + 2 * HOUR;
    const local = wallClockAt(due, 9);
    const call = await createCall(token, { scheduled_at: local });
    expect(call.scheduled_at).toBe(new Date(Date.parse(`${local}:00.000Z`) - 9 * HOUR).toISOString());
    expect(call.status).toBe("queued");

    // Seconds are allowed; an explicit offset or Z is that exact instant.
    const withSeconds = await createCall(token, { scheduled_at: `${local}:45` });
    expect(withSeconds.scheduled_at).toBe(new Date(Date.parse(`${local}:45.000Z`) - 9 * HOUR).toISOString());
    const utc = new Date(Date.now() + 3 * HOUR).toISOString().slice(0, 16);
    expect((await createCall(token, { scheduled_at: `${utc}Z` })).scheduled_at).toBe(`${utc}:00.000Z`);
    expect((await createCall(token, { scheduled_at: `${wallClockAt(Date.parse(`${utc}:00Z`), 2)}+02:00` })).scheduled_at).toBe(`${utc}:00.000Z`);
  });

  it("keeps a call due beyond the queue's 24-hour delay as scheduled and sends nothing yet", async () => {
    const { token } = await setupVoiceAgency({ timezone: "Asia/Tokyo" });
    const { queue, sent } = recordingQueue();
    const local = wallClockAt(Date.now() + 3 * DAY, 9);
    const res = await apiWithEnv(envWith({ CALL_QUEUE: queue }), "POST", "/voice-ai/calls", token, { phone: "+14155550123", scheduled_at: local });
    expect(res.status).toBe(201);
    expect(res.body.call.status).toBe("scheduled");
    expect(res.body.call.scheduled_at).toBe(new Date(Date.parse(`${local}:00.000Z`) - 9 * HOUR).toISOString());
    expect(sent).toEqual([]);
    expect((await getCall(token, res.body.call.call_uuid)).status).toBe("scheduled");
  });

  it("rejects a malformed, impossible, past or too distant scheduled_at, and both timing fields at once", async () => {
    const { token } = await setupVoiceAgency({ timezone: "Asia/Tokyo" });
    const future = wallClockAt(Date.now() + 2 * HOUR, 9);
    for (const value of ["tomorrow", "2027-13-01T10:00", "2027-02-30T10:00", "2027-01-01", "2027-01-01T25:00", 1700000000, "2027-01-01T10:00+25:00"]) {
      expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", scheduled_at: value } }), 400, SCHEDULED_FORMAT);
    }
    const past = wallClockAt(Date.now() - 5 * 60_000, 9);
    expectError(
      await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", scheduled_at: past } }),
      400,
      "scheduled_at must be in the future",
      "validation_error",
    );
    const distant = wallClockAt(Date.now() + 366 * DAY, 9);
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", scheduled_at: distant } }), 400, "scheduled_at must be within 365 days");
    expectError(
      await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", scheduled_at: future, delay_seconds: 60 } }),
      400,
      "Send either delay_seconds or scheduled_at, not both",
    );
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });

  it("moves a scheduled_at inside a spring-forward gap forward by the gap", async () => {
    const t = nextTransition("gap");
    const { token } = await setupVoiceAgency({ timezone: t.zone });
    const call = await createCall(token, { scheduled_at: `${t.date}T${t.inside}` });
    // 02:30 does not exist that night: it becomes 03:30 at the new offset.
    expect(call.scheduled_at).toBe(new Date(utcOf(t.date, "03:30", t.offsetAfter)).toISOString());
  });

  it("takes the first, earlier instant of a scheduled_at inside a fall-back overlap", async () => {
    const t = nextTransition("overlap");
    const { token } = await setupVoiceAgency({ timezone: t.zone });
    const call = await createCall(token, { scheduled_at: `${t.date}T${t.inside}` });
    expect(call.scheduled_at).toBe(new Date(utcOf(t.date, t.inside, t.offsetBefore)).toISOString());
  });

  it("keeps the wall-clock time across a DST change: 10:00 the day before and the day after differ by 47 or 49 hours", async () => {
    for (const kind of ["gap", "overlap"] as const) {
      const t = nextTransition(kind);
      const { token } = await setupVoiceAgency({ timezone: t.zone });
      const dayBefore = await createCall(token, { scheduled_at: `${shiftDate(t.date, -1)}T10:00` });
      const dayAfter = await createCall(token, { scheduled_at: `${shiftDate(t.date, 1)}T10:00` });
      expect(dayBefore.scheduled_at).toBe(new Date(utcOf(shiftDate(t.date, -1), "10:00", t.offsetBefore)).toISOString());
      expect(dayAfter.scheduled_at).toBe(new Date(utcOf(shiftDate(t.date, 1), "10:00", t.offsetAfter)).toISOString());
      const hours = (Date.parse(dayAfter.scheduled_at) - Date.parse(dayBefore.scheduled_at)) / HOUR;
      expect(hours, `${t.zone} ${t.date}`).toBe(48 - (t.offsetAfter - t.offsetBefore));
    }
  });

  it("links contact_uuid, naming the call after the contact unless contact_name is sent", async () => {
    const { token } = await setupVoiceAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Grace", last_name: "Hopper", phone: "+12125550199" } })).body.contact;
    const linked = await createCall(token, { phone: "+14155550123", contact_uuid: contact.contact_uuid.toUpperCase() });
    expect(linked).toMatchObject({ contact_uuid: contact.contact_uuid, contact_name: "Grace Hopper", phone: "+14155550123" });
    const renamed = await createCall(token, { phone: "+14155550123", contact_uuid: contact.contact_uuid, contact_name: "Admiral Hopper" });
    expect(renamed.contact_name).toBe("Admiral Hopper");
    // No contact was created for the dialed number.
    expect((await api("GET", "/contacts?q=4155550123", { token })).body.contacts).toEqual([]);
  });

  it("rejects an unknown, another agency's or a deleted contact_uuid with 400", async () => {
    const { token } = await setupVoiceAgency();
    const other = await setupAgency();
    const foreign = (await api("POST", "/contacts", { token: other.token, body: { first_name: "Eve", last_name: "X" } })).body.contact;
    const deleted = (await api("POST", "/contacts", { token, body: { first_name: "Del", last_name: "Eted" } })).body.contact;
    await api("DELETE", `/contacts/${deleted.contact_uuid}`, { token });
    for (const uuid of [RANDOM_UUID, foreign.contact_uuid, deleted.contact_uuid]) {
      expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", contact_uuid: uuid } }), 400, "Unknown contact_uuid");
    }
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", contact_uuid: "nope" } }), 400, "contact_uuid must be a UUID");
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });

  it("reuses the live contact that has the phone instead of answering 409", async () => {
    const { token } = await setupVoiceAgency();
    const existing = (await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", phone: "+14155550123" } })).body.contact;
    const call = await createCall(token, { phone: "415-555-0123", first_name: "Augusta", last_name: "King" });
    expect(call.contact_uuid).toBe(existing.contact_uuid);
    expect(call.contact_name).toBe("Augusta King");
    const byPhoneOnly = await createCall(token, { phone: "+14155550123" });
    expect(byPhoneOnly).toMatchObject({ contact_uuid: existing.contact_uuid, contact_name: "Ada Lovelace" });
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("creates a contact from a two-word contact_name, and none from one word or a phone alone", async () => {
    const { token } = await setupVoiceAgency();
    const twoWords = await createCall(token, { phone: "+14155550123", contact_name: "Ada King Lovelace" });
    const contact = (await api("GET", `/contacts/${twoWords.contact_uuid}`, { token })).body.contact;
    expect(contact).toMatchObject({ first_name: "Ada", last_name: "King Lovelace", phone: "+14155550123" });
    expect(twoWords.contact_name).toBe("Ada King Lovelace");

    const oneWord = await createCall(token, { phone: "+14155550124", contact_name: "Ada" });
    expect(oneWord).toMatchObject({ contact_uuid: null, contact_name: "Ada" });
    const bare = await createCall(token, { phone: "+14155550125" });
    expect(bare).toMatchObject({ contact_uuid: null, contact_name: null });
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("creates no contact from a contact_name whose first word or rest is longer than a contact's name (100 characters)", async () => {
    const { token } = await setupVoiceAgency();
    for (const [phone, contactName] of [
      ["+14155550123", `Ada ${"L".repeat(101)}`],
      ["+14155550124", `${"A".repeat(101)} Lovelace`],
    ] as const) {
      expect(await createCall(token, { phone, contact_name: contactName })).toMatchObject({ contact_uuid: null, contact_name: contactName });
    }
    const longest = await createCall(token, { phone: "+14155550125", contact_name: `${"A".repeat(100)} ${"L".repeat(99)}` });
    const contact = (await api("GET", `/contacts/${longest.contact_uuid}`, { token })).body.contact;
    expect(contact).toMatchObject({ first_name: "A".repeat(100), last_name: "L".repeat(99) });
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("needs first_name and last_name together", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", first_name: "Ada" } }), 400, "first_name and last_name are required");
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", last_name: "Lovelace" } }), 400, "first_name and last_name are required");
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", first_name: " ", last_name: "L" } }), 400, "first_name cannot be blank");
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });

  it("uses the agent and number sent, or the agent of the number sent", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const ben = await createVoiceAgent(agencyUuid, { name: "Ben", phone_numbers: [callerId(), callerId()] });
    const second = ben.phone_numbers[1]!.outbound_phone_number_uuid;

    const byAgent = await createCall(token, { voice_agent_uuid: ben.agent_uuid });
    expect(byAgent).toMatchObject({ voice_agent_uuid: ben.agent_uuid, outbound_phone_number_uuid: ben.phone_numbers[0]!.outbound_phone_number_uuid });
    const byNumber = await createCall(token, { outbound_phone_number_uuid: second });
    expect(byNumber).toMatchObject({ voice_agent_uuid: ben.agent_uuid, outbound_phone_number_uuid: second });
    const both = await createCall(token, { voice_agent_uuid: ben.agent_uuid, outbound_phone_number_uuid: second.toUpperCase() });
    expect(both.outbound_phone_number_uuid).toBe(second);
  });

  it("rejects unknown, foreign, inactive or mismatched agents and numbers with 400", async () => {
    const { agencyUuid, token, agent } = await setupVoiceAgency();
    const other = await setupVoiceAgency();
    const inactive = await createVoiceAgent(agencyUuid, { name: "Off", status: "inactive" });
    const ben = await createVoiceAgent(agencyUuid, { name: "Ben" });
    const cases: [Record<string, unknown>, string][] = [
      [{ voice_agent_uuid: RANDOM_UUID }, "Unknown voice_agent_uuid"],
      [{ voice_agent_uuid: other.agent.agent_uuid }, "Unknown voice_agent_uuid"],
      [{ voice_agent_uuid: inactive.agent_uuid }, "voice_agent_uuid is not active"],
      [{ outbound_phone_number_uuid: RANDOM_UUID }, "Unknown outbound_phone_number_uuid"],
      [{ outbound_phone_number_uuid: other.numberUuid }, "Unknown outbound_phone_number_uuid"],
      [{ outbound_phone_number_uuid: inactive.phone_numbers[0]!.outbound_phone_number_uuid }, "voice_agent_uuid is not active"],
      [
        { voice_agent_uuid: agent.agent_uuid, outbound_phone_number_uuid: ben.phone_numbers[0]!.outbound_phone_number_uuid },
        "outbound_phone_number_uuid does not belong to voice_agent_uuid",
      ],
      [{ voice_agent_uuid: "ava" }, "voice_agent_uuid must be a UUID"],
    ];
    for (const [body, message] of cases) {
      expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", ...body } }), 400, message, "validation_error");
    }
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });

  it("answers 400 when the agency has no active agent, or its agent has no number", async () => {
    const { agencyUuid, token } = await setupAgency();
    await creditWallet(agencyUuid, 1000);
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123" } }), 400, /^No active voice agent/);
    await createVoiceAgent(agencyUuid, { name: "Off", status: "inactive" });
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123" } }), 400, /^No active voice agent/);
    await createVoiceAgent(agencyUuid, { name: "Mute", phone_numbers: [] });
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123" } }), 400, /^The voice agent has no outbound phone number/);
  });

  it("answers 402 insufficient_funds with an empty wallet and creates nothing", async () => {
    const { token } = await setupVoiceAgency({ balanceCents: 0 });
    const res = await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", first_name: "Ada", last_name: "Lovelace" } });
    expectError(res, 402, "Insufficient wallet balance", "insufficient_funds");
    expect((await listCalls(token)).body.pagination.total).toBe(0);
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(0);
  });

  it("checks references before funds: an unknown agent is 400 even with an empty wallet", async () => {
    const { token } = await setupVoiceAgency({ balanceCents: 0 });
    expectError(await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", voice_agent_uuid: RANDOM_UUID } }), 400, "Unknown voice_agent_uuid");
  });

  it("costs two D1 round trips (one read batch, one write batch) whose rows read do not grow with the agency", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const { queue, sent } = recordingQueue();
    const customEnv = envWith({ CALL_QUEUE: queue });
    const post = async (body: Record<string, unknown>) => {
      const res = await measured(customEnv, "POST", "/voice-ai/calls", token, { delay_seconds: 3600, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res;
    };
    const ada = { phone: "+14155550123", first_name: "Ada", last_name: "Lovelace" };
    const measure = async (newPhone: string) => ({
      created: await post({ phone: newPhone, first_name: "Grace", last_name: "Hopper" }),
      reused: await post(ada),
      bare: await post({ phone: "+14155550124" }),
    });

    const first = await post(ada);
    const before = await measure("+14155550130");
    for (const res of [first, before.created, before.reused, before.bare]) expect(res.roundTrips).toBe(2);
    // Reads: the agency with its settings, the agent (and the default-agent setting), number, contact and
    // wallet, a row or three each; the write batch: the call's INSERT and its event (which reads the row
    // it copies, its agency, and the agency's webhook endpoints to count its subscribers); a new contact
    // adds its INSERT and its event.
    expect(before.reused.rowsRead).toBeLessThanOrEqual(19);
    expect(before.created.rowsRead).toBeLessThanOrEqual(22);

    // 600 contacts with phones and 600 calls more.
    await addUnrelatedRows(agencyUuid);
    await addUnrelatedRows(agencyUuid);
    const after = await measure("+14155550131");
    for (const kind of ["created", "reused", "bare"] as const) {
      expect(after[kind].roundTrips, kind).toBe(2);
      // At most the one index entry next to the phone, where a lookup by (agency, phone) stops.
      expect(after[kind].rowsRead, kind).toBeLessThanOrEqual(before[kind].rowsRead + 1);
    }
    expect(after.created.body.call.contact_uuid).not.toBe(after.reused.body.call.contact_uuid);
    expect(after.reused.body.call.contact_uuid).toBe(first.body.call.contact_uuid);
    expect(sent).toHaveLength(7);
  });

  it("links concurrent calls to one new number to one new contact", async () => {
    const { token } = await setupVoiceAgency();
    const body = { phone: "+14155550140", first_name: "Ada", last_name: "Lovelace", delay_seconds: 3600 };
    const results = await Promise.all(Array.from({ length: 8 }, () => api("POST", "/voice-ai/calls", { token, body })));
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201);
    const contactIds = new Set(results.map((res) => res.body.call.contact_uuid));
    expect(contactIds.size).toBe(1);
    expect([...contactIds][0]).toMatch(/^[0-9a-f-]{36}$/);
    const contacts = await api("GET", "/contacts?q=4155550140", { token });
    expect(contacts.body.contacts.map((c: any) => c.contact_uuid)).toEqual([...contactIds]);
    expect(results.every((res) => res.body.call.contact_name === "Ada Lovelace")).toBe(true);
  });

  it("makes a retried create safe with Idempotency-Key", async () => {
    const { token } = await setupVoiceAgency();
    const send = () => api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550123", delay_seconds: 3600 }, headers: { "Idempotency-Key": "call-retry-1" } });
    const first = await send();
    const retry = await send();
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    expect((await listCalls(token)).body.pagination.total).toBe(1);
    const changed = await api("POST", "/voice-ai/calls", { token, body: { phone: "+14155550124" }, headers: { "Idempotency-Key": "call-retry-1" } });
    expectError(changed, 400, undefined, "idempotency_key_mismatch");
  });

  it("requires the voice-ai scope", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    await expectScopeRequired(agencyUuid, "POST", "/voice-ai/calls", "voice-ai", { body: { phone: "+14155550123" } });
    expect((await listCalls(token)).body.pagination.total).toBe(0);
  });
});

describe("GET /voice-ai/calls", () => {
  it("lists calls newest first with exact fields and pagination totals", async () => {
    const { token } = await setupVoiceAgency();
    const a = await createCall(token, { delay_seconds: 3600 });
    const b = await createCall(token, { delay_seconds: 3600 });
    const c = await createCall(token, { delay_seconds: 3600 });
    const res = await listCalls(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(uuidsOf(res)).toEqual([c.call_uuid, b.call_uuid, a.call_uuid]);
    expect(res.body.calls[0]).toEqual(c);
    expect(Object.keys(res.body.calls[0]).sort()).toEqual(CALL_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });
    const page2 = await listCalls(token, "?page=2&limit=2");
    expect(uuidsOf(page2)).toEqual([a.call_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("filters by status and by contact", async () => {
    const { token } = await setupVoiceAgency();
    const ada = await createCall(token, { phone: "+14155550123", first_name: "Ada", last_name: "Lovelace", delay_seconds: 3600 });
    const other = await createCall(token, { phone: "+14155550124", delay_seconds: 3600 });
    await api("POST", `/voice-ai/calls/${other.call_uuid}/cancel`, { token });
    expect(uuidsOf(await listCalls(token, "?status=canceled"))).toEqual([other.call_uuid]);
    expect(uuidsOf(await listCalls(token, "?status=queued"))).toEqual([ada.call_uuid]);
    expect(uuidsOf(await listCalls(token, "?status=completed"))).toEqual([]);
    const byContact = await listCalls(token, `?contact_uuid=${ada.contact_uuid.toUpperCase()}`);
    expect(uuidsOf(byContact)).toEqual([ada.call_uuid]);
    expect(byContact.body.pagination.total).toBe(1);
  });

  it("reads no more rows for a page filtered by status or contact when the agency has many other calls", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const ada = await createCall(token, { phone: "+14155550123", first_name: "Ada", last_name: "Lovelace", delay_seconds: 3600 });
    await createCall(token, { phone: "+14155550124", delay_seconds: 3600 });
    const paths = ["/voice-ai/calls?status=queued&limit=5", `/voice-ai/calls?contact_uuid=${ada.contact_uuid}&limit=5`];
    const measure = () => Promise.all(paths.map((path) => measured(env as unknown as Env, "GET", path, token)));
    const before = await measure();
    // 600 completed calls of other contacts (voice_calls_agency_status_idx / _contact_idx skip them).
    await addUnrelatedRows(agencyUuid);
    await addUnrelatedRows(agencyUuid);
    const after = await measure();
    for (const [i, res] of after.entries()) {
      expect(res.status).toBe(200);
      expect(res.roundTrips, paths[i]).toBe(1);
      expect(res.body).toEqual(before[i]!.body);
      expect(res.rowsRead, paths[i]).toBeLessThanOrEqual(before[i]!.rowsRead + 2);
    }
  });

  it("never lists another agency's calls", async () => {
    const { token } = await setupVoiceAgency();
    const other = await setupVoiceAgency();
    await createCall(other.token, { delay_seconds: 3600 });
    const res = await listCalls(token);
    expect(res.body.calls).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await listCalls(token, "?limit=101"), 400, /limit/, "validation_error");
    expectError(await listCalls(token, "?page=0"), 400, /page/, "validation_error");
    expectError(await listCalls(token, "?status=done"), 400, /^status must be one of/, "validation_error");
    expectError(await listCalls(token, "?contact_uuid=x"), 400, "contact_uuid must be a UUID", "validation_error");
  });
});

describe("GET /voice-ai/calls/{call_uuid}", () => {
  it("returns the call, also for an upper-case uuid, and follows it to completed", async () => {
    const { token } = await setupVoiceAgency();
    const created = await createCall(token, { first_name: "Ada", last_name: "Lovelace" });
    const res = await api("GET", `/voice-ai/calls/${created.call_uuid.toUpperCase()}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.call.call_uuid).toBe(created.call_uuid);

    // The real queue dials it; the simulated provider completes it once its duration has passed.
    const done = await finishCall(token, created.call_uuid);
    expect(done).toMatchObject({ status: "completed", ended_reason: "customer-ended-call", direction: "outbound" });
    expect(done.duration_seconds).toBeGreaterThanOrEqual(35);
    expect(done.started_at).toMatch(ISO);
    expect(done.ended_at).toMatch(ISO);
    expect((Date.parse(done.ended_at) - Date.parse(done.started_at)) / 1000).toBe(done.duration_seconds);
    expect(done.summary).toContain("Ada Lovelace");
    expect(done.cost_cents).toBe(Math.ceil(done.duration_seconds / 60) * 12);
  });

  it("rejects a malformed call_uuid", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await api("GET", "/voice-ai/calls/123", { token }), 400, "call_uuid must be a UUID", "validation_error");
  });

  it("answers 404 for a random uuid and another agency's call", async () => {
    const { token } = await setupVoiceAgency();
    const other = await setupVoiceAgency();
    const foreign = await createCall(other.token, { delay_seconds: 3600 });
    for (const uuid of [RANDOM_UUID, foreign.call_uuid]) {
      expectError(await api("GET", `/voice-ai/calls/${uuid}`, { token }), 404, "Call not found", "not_found");
    }
  });
});

describe("POST /voice-ai/calls/{call_uuid}/cancel", () => {
  it("cancels a queued call and a scheduled one; the cancel is read back", async () => {
    const { token } = await setupVoiceAgency();
    const queued = await createCall(token, { delay_seconds: 3600 });
    const scheduled = await createCall(token, { scheduled_at: new Date(Date.now() + 3 * DAY).toISOString().slice(0, 16) + "Z" });
    expect(scheduled.status).toBe("scheduled");
    for (const call of [queued, scheduled]) {
      const res = await api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, call: { ...call, status: "canceled", updated_at: expect.stringMatching(ISO) } });
      expect(await getCall(token, call.call_uuid)).toEqual(res.body.call);
    }
  });

  it("answers 409 for a canceled call and for a completed one", async () => {
    const { token } = await setupVoiceAgency();
    const call = await createCall(token, { delay_seconds: 3600 });
    await api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token });
    expectError(
      await api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token }),
      409,
      "Only scheduled or queued calls can be canceled; this call is canceled",
      "conflict",
    );
    const done = await createCall(token);
    expect((await finishCall(token, done.call_uuid)).status).toBe("completed");
    expectError(
      await api("POST", `/voice-ai/calls/${done.call_uuid}/cancel`, { token }),
      409,
      "Only scheduled or queued calls can be canceled; this call is completed",
    );
    expect((await getCall(token, done.call_uuid)).status).toBe("completed");
  });

  it("answers 404 for a random uuid and another agency's call, which stays queued", async () => {
    const { token } = await setupVoiceAgency();
    const other = await setupVoiceAgency();
    const foreign = await createCall(other.token, { delay_seconds: 3600 });
    for (const uuid of [RANDOM_UUID, foreign.call_uuid]) {
      expectError(await api("POST", `/voice-ai/calls/${uuid}/cancel`, { token }), 404, "Call not found", "not_found");
    }
    expect((await getCall(other.token, foreign.call_uuid)).status).toBe("queued");
  });

  it("rejects a malformed call_uuid", async () => {
    const { token } = await setupVoiceAgency();
    expectError(await api("POST", "/voice-ai/calls/abc/cancel", { token }), 400, "call_uuid must be a UUID");
  });

  it("requires the voice-ai scope", async () => {
    const { agencyUuid, token } = await setupVoiceAgency();
    const call = await createCall(token, { delay_seconds: 3600 });
    await expectScopeRequired(agencyUuid, "POST", `/voice-ai/calls/${call.call_uuid}/cancel`, "voice-ai");
    expect((await getCall(token, call.call_uuid)).status).toBe("queued");
  });
});

describe("GET /voice-ai/wallet", () => {
  it("shows an empty wallet at the default rate before the first credit", async () => {
    const { token } = await setupAgency();
    const res = await api("GET", "/voice-ai/wallet", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, wallet: { balance_cents: 0, currency: "USD", rate_per_minute_cents: 12, updated_at: null } });
  });

  it("shows credits and the debit of a completed call, per started minute", async () => {
    const { agencyUuid, token } = await setupAgency();
    await patchSettings(token, { calling_hours: ALWAYS_OPEN });
    await createVoiceAgent(agencyUuid);
    await creditWallet(agencyUuid, 1000, { rate_per_minute_cents: 20 });
    await creditWallet(agencyUuid, 500);
    const credited = await getWallet(token);
    expect(credited).toEqual({ balance_cents: 1500, currency: "USD", rate_per_minute_cents: 20, updated_at: expect.stringMatching(ISO) });

    const call = await createCall(token);
    const done = await finishCall(token, call.call_uuid);
    expect(done.status).toBe("completed");
    const cost = Math.ceil(done.duration_seconds / 60) * 20;
    expect(done.cost_cents).toBe(cost);
    expect((await getWallet(token)).balance_cents).toBe(1500 - cost);
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -cost, call_id: call.call_uuid }]);
  });

  it("never shows another agency's balance", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    await creditWallet(other.agencyUuid, 9999);
    expect((await getWallet(token)).balance_cents).toBe(0);
  });
});

describe("operator: POST /admin/v1/agencies/{agency_uuid}/voice-agents", () => {
  it("creates an agent with numbers in E.164 and provider ids, visible to partners without the provider ids", async () => {
    const { agencyUuid, token } = await setupAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/voice-agents`, {
      name: "Ava",
      provider_agent_id: "asst_123",
      phone_numbers: ["(212) 555-0100", { number: "+12125550101", provider_number_id: "pn_456" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.agent).toEqual({
      agent_uuid: expect.any(String),
      name: "Ava",
      status: "active",
      provider_agent_id: "asst_123",
      phone_numbers: [
        { outbound_phone_number_uuid: expect.any(String), number: "+12125550100", provider_number_id: null },
        { outbound_phone_number_uuid: expect.any(String), number: "+12125550101", provider_number_id: "pn_456" },
      ],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const seen = await api("GET", `/voice-ai/agents/${res.body.agent.agent_uuid}`, { token });
    expect(Object.keys(seen.body.agent).sort()).toEqual(["agent_uuid", "created_at", "name", "phone_numbers", "status", "updated_at"]);
    expect(seen.body.agent.phone_numbers.map((n: any) => n.number)).toEqual(["+12125550100", "+12125550101"]);
  });

  it("rejects invalid bodies with 400", async () => {
    const agencyUuid = await createAgency();
    const cases: [unknown, string | RegExp][] = [
      [{ phone_numbers: [] }, "name is required"],
      [{ name: " ", phone_numbers: [] }, "name cannot be blank"],
      [{ name: "Ava", phone_numbers: ["555"] }, /phone_numbers/],
      [{ name: "Ava", phone_numbers: ["+12125550100", "(212) 555-0100"] }, "phone_numbers must not repeat"],
      [{ name: "Ava", phone_numbers: Array.from({ length: 11 }, (_, i) => `+1212555${String(100 + i).padStart(4, "0")}`) }, /at most 10/],
      [{ name: "Ava", status: "paused" }, /status/],
    ];
    for (const [body, message] of cases) expectError(await admin("POST", `/agencies/${agencyUuid}/voice-agents`, body), 400, message);
  });

  it("answers 409 when the agency already uses a number, and 404 for an unknown agency", async () => {
    const agencyUuid = await createAgency();
    await createVoiceAgent(agencyUuid, { phone_numbers: ["+12125550100"] });
    expectError(
      await admin("POST", `/agencies/${agencyUuid}/voice-agents`, { name: "Ben", phone_numbers: ["+12125550100"] }),
      409,
      "Phone number +12125550100 is already used by a voice agent of this agency",
    );
    // Another agency may use the same number.
    await createVoiceAgent(await createAgency(), { phone_numbers: ["+12125550100"] });
    expectError(await admin("POST", `/agencies/${RANDOM_UUID}/voice-agents`, { name: "Ava" }), 404, "Agency not found");
  });
});

describe("operator: POST /admin/v1/agencies/{agency_uuid}/wallet/credit", () => {
  it("adds funds with a ledger credit and can set the rate", async () => {
    const { agencyUuid, token } = await setupAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/wallet/credit`, { amount_cents: 2500, rate_per_minute_cents: 9, note: "Top-up" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      wallet: { balance_cents: 2500, currency: "USD", rate_per_minute_cents: 9, updated_at: expect.stringMatching(ISO) },
    });
    await creditWallet(agencyUuid, 100);
    expect(await getWallet(token)).toMatchObject({ balance_cents: 2600, rate_per_minute_cents: 9 });
  });

  it("rejects an amount that is not a positive integer, and an unknown agency", async () => {
    const agencyUuid = await createAgency();
    for (const amount of [0, -5, 1.5, "10", null]) {
      expectError(await admin("POST", `/agencies/${agencyUuid}/wallet/credit`, { amount_cents: amount }), 400, "amount_cents must be a positive integer");
    }
    expectError(await admin("POST", `/agencies/${RANDOM_UUID}/wallet/credit`, { amount_cents: 100 }), 404, "Agency not found");
  });
});

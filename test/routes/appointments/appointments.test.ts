import { dbOf } from "../../helpers/shards";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "@/app";
import { api, BASE, expectError } from "../../helpers/http";
import { createAgency, createKey, createMember, setupAgency } from "../../helpers/factories";
import {
  NEW_YORK,
  SLOT_TAKEN,
  TEAM_MEMBER_ALIASES,
  addDays,
  book,
  freeStarts,
  nextWeekday,
  openBusinessHours,
  putHours,
  APPOINTMENT_KEYS,
  setBookingSettings,
  setClock,
} from "../../helpers/calendar-factories";

const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HALF_HOUR = 30 * 60_000;

const uuidsOf = (res: { body: any }) => res.body.appointments.map((a: any) => a.appointment_uuid);
const getAppointment = (token: string, uuid: string) => api("GET", `/appointments/${uuid}`, { token });

/** A GET with the benchmark's D1 metrics on: the round trips of this one request. */
async function measured(path: string, token: string) {
  const res = await app.fetch(
    new Request(`${BASE}/api/v2${path}`, { headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" } }),
    { ...env, BENCH_METRICS: "on" },
    createExecutionContext(),
  );
  return { status: res.status, body: (await res.json()) as any, roundTrips: Number(res.headers.get("X-Bench-D1-Round-Trips")) };
}

/** An agency open Mon-Fri 9-5 in New York, with its `*` token. */
async function openAgency() {
  const agency = await setupAgency();
  await openBusinessHours(agency.token);
  return agency;
}

describe("GET /appointments", () => {
  it("lists appointments in agenda order with exact fields and pagination", async () => {
    const { token } = await openAgency();
    const monday = await freeStarts(token, nextWeekday(1));
    const tuesday = await freeStarts(token, nextWeekday(2));
    // Booked out of order: the list is by start_at.
    const late = await book(token, tuesday[0]);
    const early = await book(token, monday[4]);
    const middle = await book(token, monday[5]);

    const res = await api("GET", "/appointments", { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const expectedOrder = [early, middle, late].sort((a, b) => a.start_at.localeCompare(b.start_at));
    expect(uuidsOf(res)).toEqual(expectedOrder.map((a) => a.appointment_uuid));
    expect(Object.keys(res.body.appointments[0]).sort()).toEqual(APPOINTMENT_KEYS);
    expect(res.body.appointments[0]).toEqual(expectedOrder[0]);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await api("GET", "/appointments?page=2&limit=2", { token });
    expect(uuidsOf(page2)).toEqual([expectedOrder[2]!.appointment_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("filters by status and contact_uuid", async () => {
    const { token } = await openAgency();
    const slots = await freeStarts(token, nextWeekday(3));
    const a = await book(token, slots[0], { email: "a@example.com" });
    const b = await book(token, slots[1], { email: "b@example.com" });
    const c = await book(token, slots[2], { email: "a@example.com" });
    await api("POST", `/appointments/${b.appointment_uuid}/cancel`, { token });
    await api("PATCH", `/appointments/${c.appointment_uuid}`, { token, body: { status: "completed" } });

    expect(uuidsOf(await api("GET", "/appointments?status=booked", { token }))).toEqual([a.appointment_uuid]);
    expect(uuidsOf(await api("GET", "/appointments?status=canceled", { token }))).toEqual([b.appointment_uuid]);
    expect(uuidsOf(await api("GET", "/appointments?status=completed", { token }))).toEqual([c.appointment_uuid]);
    expect(uuidsOf(await api("GET", "/appointments?status=no_show", { token }))).toEqual([]);
    expect(a.contact_uuid).toBe(c.contact_uuid);
    const byContact = await api("GET", `/appointments?contact_uuid=${a.contact_uuid}`, { token });
    expect(uuidsOf(byContact)).toEqual([a.appointment_uuid, c.appointment_uuid]);
    expect(byContact.body.pagination.total).toBe(2);
    const combined = await api("GET", `/appointments?contact_uuid=${a.contact_uuid}&status=completed`, { token });
    expect(uuidsOf(combined)).toEqual([c.appointment_uuid]);
    expect(uuidsOf(await api("GET", `/appointments?contact_uuid=${RANDOM_UUID}`, { token }))).toEqual([]);
  });

  it.each(TEAM_MEMBER_ALIASES)("filters by team member named `%s`", async (alias) => {
    const { agencyUuid, token } = await openAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const [slot] = await freeStarts(token, nextWeekday(2));
    const agencyAppointment = await book(token, slot);
    const memberAppointment = await book(token, slot, { agent_uuid: member });
    expect(uuidsOf(await api("GET", `/appointments?${alias}=${member}`, { token }))).toEqual([memberAppointment.appointment_uuid]);
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(2);
    expect(agencyAppointment.agent_uuid).toBeNull();
  });

  it("filters by from/to as dates in the agency's timezone", async () => {
    // A Los Angeles agency whose calendar is in New York: 17:00 local in New York on a
    // Tuesday is still Tuesday in Los Angeles, but 09:00 New York on Wednesday is 06:00 LA.
    const agencyUuid = await createAgency("LA agency", "America/Los_Angeles");
    const { token } = await createKey(agencyUuid, { scopes: ["*"] });
    await putHours(token, { timezone: NEW_YORK, slot_minutes: 30, days: [{ weekday: 1, start: "00:00", end: "04:00" }, { weekday: 2, start: "09:00", end: "10:00" }] });
    const monday = nextWeekday(1);
    const tuesday = addDays(monday, 1);
    const [mondayNight] = await freeStarts(token, monday); // 00:00 New York Monday = Sunday 21:00 in Los Angeles
    const [tuesdayMorning] = await freeStarts(token, tuesday);
    const night = await book(token, mondayNight);
    const morning = await book(token, tuesdayMorning);

    const sunday = addDays(monday, -1);
    expect(uuidsOf(await api("GET", `/appointments?from=${sunday}&to=${sunday}`, { token }))).toEqual([night.appointment_uuid]);
    expect(uuidsOf(await api("GET", `/appointments?from=${monday}&to=${monday}`, { token }))).toEqual([]);
    expect(uuidsOf(await api("GET", `/appointments?from=${tuesday}&to=${tuesday}`, { token }))).toEqual([morning.appointment_uuid]);
    const both = await api("GET", `/appointments?from=${sunday}&to=${tuesday}`, { token });
    expect(uuidsOf(both)).toEqual([night.appointment_uuid, morning.appointment_uuid]);
    expect(both.body.pagination.total).toBe(2);
  });

  it("never lists another agency's appointments", async () => {
    const a = await openAgency();
    const b = await openAgency();
    await book(a.token, (await freeStarts(a.token, nextWeekday(1)))[0]);
    const res = await api("GET", "/appointments", { token: b.token });
    expect(res.body.appointments).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it.each<[string, string, string | RegExp]>([
    ["only from", "?from=2026-12-01", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["a bad date", "?from=2026-12-01&to=12/02/2026", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["91 days", "?from=2027-01-01&to=2027-04-01", "Date range must be between 1 and 90 days inclusive."],
    ["to before from", "?from=2027-01-02&to=2027-01-01", "Date range must be between 1 and 90 days inclusive."],
    ["an unknown status", "?status=pending", "status must be one of booked, canceled, completed, no_show"],
    ["a malformed contact_uuid", "?contact_uuid=abc", "contact_uuid must be a UUID"],
    ["a malformed agent_uuid", "?agent_uuid=abc", "agent_uuid must be a UUID"],
    ["a limit of 101", "?limit=101", /^limit/],
  ])("rejects %s with 400", async (_name, query, message) => {
    const { token } = await setupAgency();
    expectError(await api("GET", `/appointments${query}`, { token }), 400, message, "validation_error");
  });

  it("accepts a 90-day range and a single day", async () => {
    const { token } = await openAgency();
    const date = nextWeekday(4);
    const [slot] = await freeStarts(token, date);
    const a = await book(token, slot);
    expect(uuidsOf(await api("GET", `/appointments?from=${date}&to=${date}`, { token }))).toEqual([a.appointment_uuid]);
    expect(uuidsOf(await api("GET", `/appointments?from=${addDays(date, -89)}&to=${date}`, { token }))).toEqual([a.appointment_uuid]);
    expect(uuidsOf(await api("GET", `/appointments?from=${addDays(date, 1)}&to=${addDays(date, 90)}`, { token }))).toEqual([]);
  });

  it("reads in two D1 round trips at most: the member check with the timezone, then the list", async () => {
    const { agencyUuid, token } = await openAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const date = nextWeekday(2);
    const [slot] = await freeStarts(token, date);
    await book(token, slot);
    const memberAppointment = await book(token, slot, { agent_uuid: member });
    const range = `from=${date}&to=${date}`;

    const plain = await measured("/appointments", token);
    expect(plain.status).toBe(200);
    expect(plain.body.pagination.total).toBe(2);
    expect(plain.roundTrips).toBe(1);
    const dated = await measured(`/appointments?${range}`, token);
    expect(dated.body.pagination.total).toBe(2);
    expect(dated.roundTrips).toBe(2);
    const byMember = await measured(`/appointments?agent_uuid=${member}`, token);
    expect(uuidsOf(byMember)).toEqual([memberAppointment.appointment_uuid]);
    expect(byMember.roundTrips).toBe(2);
    const both = await measured(`/appointments?agent_uuid=${member.toUpperCase()}&${range}`, token);
    expect(both.status).toBe(200);
    expect(uuidsOf(both)).toEqual([memberAppointment.appointment_uuid]);
    expect(both.roundTrips).toBe(2);

    const outsider = await createMember((await setupAgency()).agencyUuid);
    for (const query of [`agent_uuid=${outsider}&${range}`, `agent_uuid=${RANDOM_UUID}&${range}`, `agent_uuid=${outsider}`]) {
      const res = await measured(`/appointments?${query}`, token);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Team member not found in this agency");
      expect(res.roundTrips).toBe(1);
    }
  });

  it("rejects a team member of another agency with 400", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const outsider = await createMember(other.agencyUuid);
    expectError(await api("GET", `/appointments?agent_uuid=${outsider}`, { token }), 400, "Team member not found in this agency");
  });
});

describe("GET /appointments/{appointment_uuid}", () => {
  it("returns the appointment with the contact's current name", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(2)))[0], { first_name: "Grace", last_name: "Hopper" });
    const res = await getAppointment(token, appointment.appointment_uuid.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, appointment });
    await api("PATCH", `/contacts/${appointment.contact_uuid}`, { token, body: { last_name: "Murray" } });
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment.contact_name).toBe("Grace Murray");
  });

  it("is 404 for a random uuid and for another agency's appointment", async () => {
    const a = await openAgency();
    const b = await setupAgency();
    const appointment = await book(a.token, (await freeStarts(a.token, nextWeekday(2)))[0]);
    expectError(await getAppointment(a.token, RANDOM_UUID), 404, "Appointment not found", "not_found");
    expectError(await getAppointment(b.token, appointment.appointment_uuid), 404, "Appointment not found", "not_found");
  });

  it("rejects a malformed uuid with 400", async () => {
    const { token } = await setupAgency();
    expectError(await getAppointment(token, "not-a-uuid"), 400, "appointment_uuid must be a UUID");
  });
});

describe("PATCH /appointments/{appointment_uuid}", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const patch = (token: string, uuid: string, body: unknown) => api("PATCH", `/appointments/${uuid}`, { token, body });

  it("sets and clears notes and title, keeping other fields", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(2)))[0], { notes: "old" });
    const res = await patch(token, appointment.appointment_uuid, { notes: "Bring the pre-approval letter", title: "Tour" });
    expect(res.status).toBe(200);
    expect(res.body.appointment).toEqual({
      ...appointment,
      notes: "Bring the pre-approval letter",
      title: "Tour",
      updated_at: res.body.appointment.updated_at,
    });
    expect(res.body.appointment.updated_at >= appointment.updated_at).toBe(true);
    const cleared = await patch(token, appointment.appointment_uuid, { notes: null, title: null });
    expect(cleared.body.appointment).toMatchObject({ notes: null, title: null, status: "booked" });
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment).toEqual(cleared.body.appointment);
  });

  it("marks an appointment completed or no_show; it keeps its slot", async () => {
    const { token } = await openAgency();
    const date = nextWeekday(3);
    const [slot] = await freeStarts(token, date);
    const appointment = await book(token, slot);
    expect((await patch(token, appointment.appointment_uuid, { status: "no_show" })).body.appointment.status).toBe("no_show");
    const completed = await patch(token, appointment.appointment_uuid, { status: "completed" });
    expect(completed.body.appointment.status).toBe("completed");
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment.status).toBe("completed");
    expect(await freeStarts(token, date)).not.toContain(slot);
  });

  it("reschedules to a free slot, freeing the old one", async () => {
    const { token } = await openAgency();
    const date = nextWeekday(4);
    const [first, , third] = await freeStarts(token, date);
    const appointment = await book(token, first);
    const res = await patch(token, appointment.appointment_uuid, { start_at: third });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.appointment).toMatchObject({ start_at: third, end_at: new Date(Date.parse(third) + HALF_HOUR).toISOString(), status: "booked" });
    const free = await freeStarts(token, date);
    expect(free).toContain(first);
    expect(free).not.toContain(third);
    // The old slot can be booked by someone else now.
    expect((await book(token, first)).start_at).toBe(first);
  });

  it("answers 409 with the specification's message when rescheduling onto a taken slot or outside the hours", async () => {
    const { token } = await openAgency();
    const date = nextWeekday(1);
    const [first, second] = await freeStarts(token, date);
    const mine = await book(token, first);
    await book(token, second);
    expectError(await patch(token, mine.appointment_uuid, { start_at: second }), 409, SLOT_TAKEN, "conflict");
    expectError(await patch(token, mine.appointment_uuid, { start_at: `${nextWeekday(0)}T15:00:00.000Z` }), 409, SLOT_TAKEN);
    expectError(await patch(token, mine.appointment_uuid, { start_at: "2026-01-05T15:00:00.000Z" }), 409, SLOT_TAKEN);
    expectError(await patch(token, mine.appointment_uuid, { start_at: new Date(Date.parse(first) + 60_000).toISOString() }), 409, SLOT_TAKEN);
    expect((await getAppointment(token, mine.appointment_uuid)).body.appointment.start_at).toBe(first);
  });

  it("lets exactly one of two concurrent reschedules onto one slot win", async () => {
    const { token } = await openAgency();
    const [a, b, target] = await freeStarts(token, nextWeekday(2));
    const first = await book(token, a);
    const second = await book(token, b);
    const results = await Promise.all([
      patch(token, first.appointment_uuid, { start_at: target }),
      patch(token, second.appointment_uuid, { start_at: target }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const booked = await api("GET", "/appointments?status=booked", { token });
    expect(booked.body.appointments.filter((x: any) => x.start_at === target)).toHaveLength(1);
  });

  it("refuses a slot that overlaps an appointment booked under an older, longer slot length", async () => {
    const { token } = await setupAgency();
    await putHours(token, { timezone: NEW_YORK, slot_minutes: 60, days: [{ weekday: 2, start: "09:00", end: "12:00" }] });
    const date = nextWeekday(2);
    const [nine] = await freeStarts(token, date);
    const long = await book(token, nine);
    await putHours(token, { timezone: NEW_YORK, slot_minutes: 30, days: [{ weekday: 2, start: "09:00", end: "12:00" }] });
    const halfPast = new Date(Date.parse(nine) + HALF_HOUR).toISOString();
    expect(await freeStarts(token, date)).not.toContain(halfPast);
    const res = await api("POST", "/calendar/bookings", { token, body: { start_at: halfPast, first_name: "A", last_name: "B", email: "ab@example.com" } });
    expectError(res, 409, SLOT_TAKEN);
    const other = await book(token, new Date(Date.parse(nine) + 2 * 60 * 60_000).toISOString());
    expectError(await patch(token, other.appointment_uuid, { start_at: halfPast }), 409, SLOT_TAKEN);
    expect(long.end_at).toBe(new Date(Date.parse(nine) + 2 * HALF_HOUR).toISOString());
  });

  it("answers 409 for a reschedule sooner than the minimum notice or within the buffer, and moves once the settings allow it", async () => {
    setClock("2027-03-01T13:00:00.000Z"); // Monday 08:00 in New York (EST, UTC-5)
    const { token } = await openAgency();
    const mine = await book(token, "2027-03-01T17:00:00.000Z"); // 12:00 EST
    await book(token, "2027-03-01T19:00:00.000Z"); // 14:00 EST
    const move = (startAt: string) => patch(token, mine.appointment_uuid, { start_at: startAt });

    await setBookingSettings(token, { min_notice_minutes: 120 });
    expectError(await move("2027-03-01T14:30:00.000Z"), 409, SLOT_TAKEN, "conflict"); // 90 minutes away
    await setBookingSettings(token, { min_notice_minutes: 0, buffer_minutes: 30 });
    expectError(await move("2027-03-01T18:30:00.000Z"), 409, SLOT_TAKEN, "conflict"); // ends as the other starts
    expectError(await move("2027-03-01T19:30:00.000Z"), 409, SLOT_TAKEN, "conflict"); // starts as the other ends
    expect((await getAppointment(token, mine.appointment_uuid)).body.appointment.start_at).toBe("2027-03-01T17:00:00.000Z");

    await setBookingSettings(token, { buffer_minutes: 0 });
    expect((await move("2027-03-01T18:30:00.000Z")).body.appointment).toMatchObject({
      start_at: "2027-03-01T18:30:00.000Z",
      end_at: "2027-03-01T19:00:00.000Z",
    });
    await setBookingSettings(token, { min_notice_minutes: 90 });
    expect((await move("2027-03-01T14:30:00.000Z")).status).toBe(200);
  });

  it("lets an appointment move by less than the buffer: its own old time does not count", async () => {
    setClock("2027-03-01T13:00:00.000Z");
    const { token } = await openAgency();
    await setBookingSettings(token, { buffer_minutes: 60 });
    const mine = await book(token, "2027-03-01T17:00:00.000Z");
    const res = await patch(token, mine.appointment_uuid, { start_at: "2027-03-01T17:30:00.000Z" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.appointment).toMatchObject({ start_at: "2027-03-01T17:30:00.000Z", end_at: "2027-03-01T18:00:00.000Z" });
    // Another appointment is still kept an hour away from it.
    expectError(await api("POST", "/calendar/bookings", { token, body: { start_at: "2027-03-01T18:30:00.000Z", first_name: "A", last_name: "B", email: "ab@example.com" } }), 409, SLOT_TAKEN);
    expect((await patch(token, mine.appointment_uuid, { start_at: "2027-03-01T17:00:00.000Z" })).status).toBe(200);
  });

  it("refuses to reschedule an appointment that is not booked, and any change to a canceled one", async () => {
    const { token } = await openAgency();
    const [first, second, third] = await freeStarts(token, nextWeekday(5));
    const done = await book(token, first);
    await patch(token, done.appointment_uuid, { status: "completed" });
    expectError(await patch(token, done.appointment_uuid, { start_at: third }), 409, "Only a booked appointment can be rescheduled; this one is completed");
    const canceled = await book(token, second);
    await api("POST", `/appointments/${canceled.appointment_uuid}/cancel`, { token });
    for (const body of [{ notes: "x" }, { status: "completed" }, { start_at: third }]) {
      expectError(await patch(token, canceled.appointment_uuid, body), 409, "A canceled appointment cannot be changed", "conflict");
    }
    expect((await getAppointment(token, canceled.appointment_uuid)).body.appointment).toMatchObject({ status: "canceled", notes: null });
  });

  it("answers an empty body with the unchanged appointment", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(2)))[0]);
    const res = await patch(token, appointment.appointment_uuid, {});
    expect(res.status).toBe(200);
    expect(res.body.appointment).toEqual(appointment);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["status canceled", { status: "canceled" }, "status must be completed or no_show (cancel with POST /appointments/{appointment_uuid}/cancel)"],
    ["status booked", { status: "booked" }, "status must be completed or no_show (cancel with POST /appointments/{appointment_uuid}/cancel)"],
    ["a start_at without offset", { start_at: "2026-12-01T09:00" }, "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z"],
    ["a start_at over 40 characters", { start_at: `2026-12-01T14:00:00.${"0".repeat(30)}Z` }, "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z"],
    ["notes too long", { notes: "x".repeat(2001) }, "notes must be a string of at most 2000 characters"],
    ["a blank title", { title: "  " }, "title must be 1 to 200 characters"],
    ["an unknown field", { agent_uuid: RANDOM_UUID }, "Unknown field: agent_uuid"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(2)))[0]);
    expectError(await patch(token, appointment.appointment_uuid, body), 400, message, "validation_error");
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment).toEqual(appointment);
  });

  it("is 404 for a random uuid and for another agency's appointment, which stays unchanged", async () => {
    const a = await openAgency();
    const b = await setupAgency();
    const appointment = await book(a.token, (await freeStarts(a.token, nextWeekday(2)))[0]);
    expectError(await patch(a.token, RANDOM_UUID, { notes: "x" }), 404, "Appointment not found", "not_found");
    expectError(await patch(b.token, appointment.appointment_uuid, { notes: "x", status: "no_show" }), 404, "Appointment not found");
    expect((await getAppointment(a.token, appointment.appointment_uuid)).body.appointment).toEqual(appointment);
  });
});

describe("POST /appointments/{appointment_uuid}/cancel", () => {
  const cancel = (token: string, uuid: string, headers?: Record<string, string>) => api("POST", `/appointments/${uuid}/cancel`, { token, headers });

  it("cancels a booked appointment and frees its slot", async () => {
    const { token } = await openAgency();
    const date = nextWeekday(3);
    const [slot] = await freeStarts(token, date);
    const appointment = await book(token, slot);
    const res = await cancel(token, appointment.appointment_uuid);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { canceled_at, updated_at } = res.body.appointment;
    expect(canceled_at).toMatch(ISO);
    expect(res.body.appointment).toEqual({ ...appointment, status: "canceled", canceled_at, updated_at });
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment).toEqual(res.body.appointment);
    expect(await freeStarts(token, date)).toContain(slot);
  });

  it("answers 409 when canceling twice", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(3)))[0]);
    const first = await cancel(token, appointment.appointment_uuid);
    expectError(await cancel(token, appointment.appointment_uuid), 409, "Appointment is already canceled", "conflict");
    expect((await getAppointment(token, appointment.appointment_uuid)).body.appointment.canceled_at).toBe(first.body.appointment.canceled_at);
  });

  it("lets exactly one of concurrent cancels succeed", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(3)))[0]);
    const results = await Promise.all(Array.from({ length: 5 }, () => cancel(token, appointment.appointment_uuid)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
  });

  it("answers 409 for a completed or no-show appointment", async () => {
    const { token } = await openAgency();
    const [a, b] = await freeStarts(token, nextWeekday(3));
    for (const [slot, status] of [[a, "completed"], [b, "no_show"]] as const) {
      const appointment = await book(token, slot);
      await api("PATCH", `/appointments/${appointment.appointment_uuid}`, { token, body: { status } });
      expectError(await cancel(token, appointment.appointment_uuid), 409, `Only a booked appointment can be canceled; this one is ${status}`);
    }
  });

  it("replays a retried cancel with the same Idempotency-Key", async () => {
    const { token } = await openAgency();
    const appointment = await book(token, (await freeStarts(token, nextWeekday(3)))[0]);
    const headers = { "Idempotency-Key": `cancel-${crypto.randomUUID()}` };
    const first = await cancel(token, appointment.appointment_uuid, headers);
    const retry = await cancel(token, appointment.appointment_uuid, headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
  });

  it("is 404 for a random uuid and for another agency's appointment, which stays booked", async () => {
    const a = await openAgency();
    const b = await setupAgency();
    const appointment = await book(a.token, (await freeStarts(a.token, nextWeekday(2)))[0]);
    expectError(await cancel(a.token, RANDOM_UUID), 404, "Appointment not found", "not_found");
    expectError(await cancel(b.token, appointment.appointment_uuid), 404, "Appointment not found");
    expect((await getAppointment(a.token, appointment.appointment_uuid)).body.appointment.status).toBe("booked");
  });

  it("rejects a malformed uuid with 400", async () => {
    const { token } = await setupAgency();
    expectError(await cancel(token, "123"), 400, "appointment_uuid must be a UUID");
  });
});

describe("appointments in the database", () => {
  it("stores the calendar key and keeps canceled rows out of the live-slot index", async () => {
    const { agencyUuid, token } = await openAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const [slot] = await freeStarts(token, nextWeekday(2));
    const agencyOne = await book(token, slot);
    await api("POST", `/appointments/${agencyOne.appointment_uuid}/cancel`, { token });
    const agencyTwo = await book(token, slot);
    const memberOne = await book(token, slot, { agent_uuid: member });
    const rows = await (await dbOf(agencyUuid)).prepare("SELECT id, calendar_key, member_id, status FROM appointments WHERE agency_id = ? ORDER BY created_at, rowid")
      .bind(agencyUuid)
      .all<{ id: string; calendar_key: string; member_id: string | null; status: string }>();
    expect(rows.results).toEqual([
      { id: agencyOne.appointment_uuid, calendar_key: "agency", member_id: null, status: "canceled" },
      { id: agencyTwo.appointment_uuid, calendar_key: "agency", member_id: null, status: "booked" },
      { id: memberOne.appointment_uuid, calendar_key: member, member_id: member, status: "booked" },
    ]);
  });
});

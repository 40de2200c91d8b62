import { dbOf } from "../../helpers/shards";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { DateTime } from "luxon";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "@/app";
import { datesBetween, nextDate } from "@/lib/local-dates";
import { availableDates, publicSlot, slotStartingAt, slotsOnDate, type WorkingHours } from "@/domain/calendar/slots";
import { api, BASE, expectError } from "../../helpers/http";
import { createAgency, createKey, createMember, createPathRecord, setupAgency } from "../../helpers/factories";
import {
  MISCONFIGURED,
  NEW_YORK,
  SLOT_TAKEN,
  TEAM_MEMBER_ALIASES,
  WEEKDAYS_9_TO_5,
  addDays,
  availability,
  book,
  bookingBody,
  countWeekdays,
  createLegacyCalendarToken,
  createWidget,
  freeStarts,
  nextDstChange,
  nextWeekday,
  openBusinessHours,
  putHours,
  today,
  weekdayOf,
  APPOINTMENT_KEYS,
  setBookingSettings,
  setClock,
} from "../../helpers/calendar-factories";

const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOURS_KEYS = ["agent_uuid", "timezone", "slot_minutes", "slot_minutes_source", "days", "created_at", "updated_at"].sort();
const SLOT_KEYS = ["start_at", "end_at", "time", "local_start", "local_end"].sort();
const HALF_HOUR = 30 * 60_000;
const HOUR = 60 * 60_000;
const BUSINESS_TIMES = Array.from({ length: 16 }, (_, i) => `${String(9 + Math.floor(i / 2)).padStart(2, "0")}:${i % 2 ? "30" : "00"}`);

const iso = (ms: number) => new Date(ms).toISOString();
/** Booking settings that rule nothing out: no notice, no buffer. */
const NO_RULES = { min_notice_minutes: 0, buffer_minutes: 0 };

afterEach(() => {
  vi.useRealTimers();
});
/** New York's UTC offset (minutes) at noon on `date`, from the tz database. */
const newYorkOffset = (date: string) => DateTime.fromISO(`${date}T12:00:00`, { zone: NEW_YORK }).offset;
/** Wall-clock `HH:MM` on `date` at a fixed UTC offset (minutes), as a UTC ISO string. */
const atOffset = (date: string, time: string, offsetMinutes: number) => iso(Date.parse(`${date}T${time}:00.000Z`) - offsetMinutes * 60_000);

/** A GET with the benchmark's D1 metrics on: rows read and round trips of this one request. */
async function measured(path: string, token: string) {
  const res = await app.fetch(
    new Request(`${BASE}/api/v2${path}`, { headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" } }),
    { ...env, BENCH_METRICS: "on" },
    createExecutionContext(),
  );
  return {
    status: res.status,
    body: (await res.json()) as any,
    rowsRead: Number(res.headers.get("X-Bench-Rows-Read")),
    roundTrips: Number(res.headers.get("X-Bench-D1-Round-Trips")),
  };
}

let fillerRound = 0;
/**
 * Rows the availability of the agency calendar over [from, to] must not read, written
 * straight to D1: contacts, appointments of that calendar long before and long after the
 * range, canceled ones inside it, and live ones of another team member's calendar inside it.
 */
async function addUnrelatedRows(agencyUuid: string, from: string, to: string, perKind = 75) {
  const round = fillerRound++;
  const now = new Date().toISOString();
  const db = await dbOf(agencyUuid);
  const contact = db.prepare(
    `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
     VALUES (?, ?, 'Filler', 'Contact', NULL, ?, '[]', NULL, NULL, '{}', ?, ?, NULL)`,
  );
  const appointment = db.prepare(
    `INSERT INTO appointments (id, agency_id, contact_id, member_id, calendar_key, start_at, end_at, status, title, notes,
       booking_widget_id, path_id, created_at, updated_at, canceled_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?, ?, NULL)`,
  );
  const otherMember = crypto.randomUUID();
  const start = (date: string, i: number) => Date.parse(`${date}T14:00:00.000Z`) + (i % 16) * HALF_HOUR;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < perKind; i++) {
    const contactId = crypto.randomUUID();
    statements.push(contact.bind(contactId, agencyUuid, `+1212${String(round * 1000 + i).padStart(7, "0")}`, now, now));
    const days = 10 * round + Math.floor(i / 16);
    const rows: [string | null, string, number, string][] = [
      [null, "agency", start(addDays(from, -20 - days), i), "booked"],
      [null, "agency", start(addDays(to, 20 + days), i), "booked"],
      [null, "agency", start(addDays(from, Math.floor(i / 16)), i), "canceled"],
      [otherMember, otherMember, start(addDays(from, Math.floor(i / 16)), i), "booked"],
    ];
    for (const [memberId, calendarKey, at, status] of rows) {
      statements.push(appointment.bind(crypto.randomUUID(), agencyUuid, contactId, memberId, calendarKey, iso(at), iso(at + HALF_HOUR), status, now, now));
    }
  }
  await db.batch(statements);
}

// ---------------------------------------------------------------------------------------
// The slot computation, with an injected clock.
// ---------------------------------------------------------------------------------------

describe("slot computation in the calendar's timezone", () => {
  const nightAndMornings: WorkingHours = {
    timezone: NEW_YORK,
    slotMinutes: 60,
    days: [
      { weekday: 0, start: "00:00", end: "05:00" },
      ...[0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: "09:00", end: "10:00" })),
    ],
  };
  const starts = (hours: WorkingHours, date: string) => slotsOnDate(hours, date).map((s) => iso(s.start));

  it("gives the repeated hour of the November 2026 fall-back night its two real hours, nothing doubled", () => {
    // 2026-11-01: 02:00 EDT becomes 01:00 EST; 00:00-05:00 local lasts six real hours.
    expect(starts(nightAndMornings, "2026-11-01")).toEqual([
      "2026-11-01T04:00:00.000Z",
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T07:00:00.000Z",
      "2026-11-01T08:00:00.000Z",
      "2026-11-01T09:00:00.000Z",
      "2026-11-01T14:00:00.000Z",
    ]);
    const shown = slotsOnDate(nightAndMornings, "2026-11-01").map((s) => publicSlot(s));
    expect(shown.map((s) => s.time)).toEqual(["00:00", "01:00", "01:00", "02:00", "03:00", "04:00", "09:00"]);
    expect(shown[1]!.local_start).toBe("2026-11-01T01:00:00.000-04:00");
    expect(shown[2]!.local_start).toBe("2026-11-01T01:00:00.000-05:00");
    // 09:00 on either side: EDT (UTC-4) before, EST (UTC-5) after.
    expect(starts(nightAndMornings, "2026-10-31")).toEqual(["2026-10-31T13:00:00.000Z"]);
    expect(starts(nightAndMornings, "2026-11-02")).toEqual(["2026-11-02T14:00:00.000Z"]);
  });

  it("leaves out the skipped hour of the March 2027 spring-forward night, nothing missing around it", () => {
    // 2027-03-14: 02:00 EST becomes 03:00 EDT; 00:00-05:00 local lasts four real hours.
    expect(starts(nightAndMornings, "2027-03-14")).toEqual([
      "2027-03-14T05:00:00.000Z",
      "2027-03-14T06:00:00.000Z",
      "2027-03-14T07:00:00.000Z",
      "2027-03-14T08:00:00.000Z",
      "2027-03-14T13:00:00.000Z",
    ]);
    const shown = slotsOnDate(nightAndMornings, "2027-03-14").map((s) => publicSlot(s));
    expect(shown.map((s) => s.time)).toEqual(["00:00", "01:00", "03:00", "04:00", "09:00"]);
    expect(shown[1]!.end_at).toBe("2027-03-14T07:00:00.000Z");
    expect(shown[1]!.local_end).toBe("2027-03-14T03:00:00.000-04:00");
    expect(starts(nightAndMornings, "2027-03-13")).toEqual(["2027-03-13T14:00:00.000Z"]);
    expect(starts(nightAndMornings, "2027-03-15")).toEqual(["2027-03-15T13:00:00.000Z"]);
  });

  it("moves a range start inside the skipped hour forward by the gap", () => {
    const hours: WorkingHours = { timezone: NEW_YORK, slotMinutes: 30, days: [{ weekday: 0, start: "02:00", end: "04:00" }] };
    // 02:00 does not exist on 2027-03-14: the range runs 03:00-04:00 EDT.
    expect(starts(hours, "2027-03-14")).toEqual(["2027-03-14T07:00:00.000Z", "2027-03-14T07:30:00.000Z"]);
    // A week later the same range is two hours long.
    expect(starts(hours, "2027-03-21")).toHaveLength(4);
  });

  it("ends a range at 24:00 at the next midnight and never offers a partial slot", () => {
    const hours: WorkingHours = {
      timezone: "UTC",
      slotMinutes: 45,
      days: [{ weekday: 2, start: "22:00", end: "24:00" }],
    };
    expect(starts(hours, "2026-12-01")).toEqual(["2026-12-01T22:00:00.000Z", "2026-12-01T22:45:00.000Z"]);
  });

  it("offers only slots that start after now and overlap no busy interval, dropping empty dates", () => {
    const hours: WorkingHours = { timezone: NEW_YORK, slotMinutes: 30, days: WEEKDAYS_9_TO_5 };
    const now = Date.parse("2026-12-01T15:10:00.000Z"); // Tuesday 10:10 in New York
    const busy = [{ start: Date.parse("2026-12-01T16:00:00.000Z"), end: Date.parse("2026-12-01T17:00:00.000Z") }];
    const dates = availableDates(hours, { from: "2026-11-30", to: "2026-12-06" }, busy, NO_RULES, now);
    expect(dates.map((d) => d.date)).toEqual(["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"]);
    const tuesday = dates[0]!.slots.map((s) => iso(s.start));
    expect(tuesday[0]).toBe("2026-12-01T15:30:00.000Z");
    expect(tuesday).not.toContain("2026-12-01T15:00:00.000Z");
    expect(tuesday).not.toContain("2026-12-01T16:00:00.000Z");
    expect(tuesday).not.toContain("2026-12-01T16:30:00.000Z");
    expect(tuesday).toContain("2026-12-01T17:00:00.000Z");
    expect(tuesday).toHaveLength(16 - 3 - 2);
  });

  it("skips every slot touched by busy intervals of any length and order", () => {
    const hours: WorkingHours = { timezone: "UTC", slotMinutes: 30, days: [2, 3].map((weekday) => ({ weekday, start: "09:00", end: "12:00" })) };
    const at = (s: string) => Date.parse(`${s}:00.000Z`);
    const busy = [
      { start: at("2026-12-02T09:30"), end: at("2026-12-02T09:45") },
      { start: at("2026-12-01T11:00"), end: at("2026-12-01T11:30") },
      { start: at("2026-12-01T09:00"), end: at("2026-12-01T10:00") },
      { start: at("2026-12-02T11:15"), end: at("2026-12-02T13:00") },
    ];
    const dates = availableDates(hours, { from: "2026-12-01", to: "2026-12-02" }, busy, NO_RULES, at("2026-11-30T00:00"));
    expect(dates.map((d) => [d.date, d.slots.map((s) => iso(s.start).slice(11, 16))])).toEqual([
      ["2026-12-01", ["10:00", "10:30", "11:30"]],
      ["2026-12-02", ["09:00", "10:00", "10:30"]],
    ]);
  });

  it("counts dates to the end of year 9999 without running away", () => {
    expect(datesBetween("9999-12-30", "9999-12-31")).toEqual(["9999-12-30", "9999-12-31"]);
    expect(nextDate("9999-12-31")).toBe("+010000-01-01");
    expect(datesBetween("2026-12-02", "2026-12-01")).toEqual([]);
    const allDay: WorkingHours = { timezone: "Pacific/Apia", slotMinutes: 60, days: [{ weekday: 5, start: "00:00", end: "24:00" }] };
    const [last] = availableDates(allDay, { from: "9999-12-31", to: "9999-12-31" }, [], NO_RULES, 0);
    expect(last!.slots).toHaveLength(24);
    expect(publicSlot(last!.slots[23]!).local_end).toBe("+010000-01-01T00:00:00.000+13:00");
  });

  it("offers only slots with the minimum notice, and none within the buffer of an appointment", () => {
    const hours: WorkingHours = { timezone: "UTC", slotMinutes: 30, days: [{ weekday: 2, start: "09:00", end: "13:00" }] };
    const at = (s: string) => Date.parse(`${s}:00.000Z`);
    const appointment = [{ start: at("2026-12-01T11:00"), end: at("2026-12-01T11:30") }];
    const starts = (rules: { min_notice_minutes: number; buffer_minutes: number }, now: string) =>
      availableDates(hours, { from: "2026-12-01", to: "2026-12-01" }, appointment, rules, at(now)).flatMap((d) =>
        d.slots.map((s) => iso(s.start).slice(11, 16)),
      );
    // 90 minutes' notice at 07:45 rules out 09:00 (09:15 is the earliest start); a 20-minute buffer
    // blocks [10:40, 11:50): 10:30 ends within it, 11:30 starts within it; 10:00 and 12:00 stay free.
    expect(starts({ min_notice_minutes: 90, buffer_minutes: 20 }, "2026-12-01T07:45")).toEqual(["09:30", "10:00", "12:00", "12:30"]);
    // A start exactly at the notice boundary is offered; without notice, a slot starting now is not.
    expect(starts({ min_notice_minutes: 90, buffer_minutes: 0 }, "2026-12-01T07:30")[0]).toBe("09:00");
    expect(starts(NO_RULES, "2026-12-01T09:00")[0]).toBe("09:30");
    // A buffer that only touches a slot leaves it free: 10:00-10:30 and 12:00-12:30 at 30 minutes.
    expect(starts({ min_notice_minutes: 0, buffer_minutes: 30 }, "2026-12-01T00:00")).toEqual(["09:00", "09:30", "10:00", "12:00", "12:30"]);
  });

  it("finds a slot by its exact start only", () => {
    const hours: WorkingHours = { timezone: NEW_YORK, slotMinutes: 30, days: WEEKDAYS_9_TO_5 };
    expect(slotStartingAt(hours, Date.parse("2026-12-01T14:00:00.000Z"))).toMatchObject({
      start: Date.parse("2026-12-01T14:00:00.000Z"),
      end: Date.parse("2026-12-01T14:30:00.000Z"),
    });
    expect(slotStartingAt(hours, Date.parse("2026-12-01T14:10:00.000Z"))).toBeNull();
    expect(slotStartingAt(hours, Date.parse("2026-12-01T13:30:00.000Z"))).toBeNull();
    expect(slotStartingAt(hours, Date.parse("2026-12-05T14:00:00.000Z"))).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------
// PUT /calendar/hours
// ---------------------------------------------------------------------------------------

describe("PUT /calendar/hours", () => {
  it("sets the agency calendar's hours, sorted, and GET reads them back", async () => {
    const { token } = await setupAgency();
    const res = await api("PUT", "/calendar/hours", {
      token,
      body: {
        timezone: "America/Chicago",
        slot_minutes: 45,
        days: [
          { weekday: 3, start: "13:00", end: "17:00" },
          { weekday: 1, start: "13:00", end: "17:00" },
          { weekday: 1, start: "08:00", end: "12:00" },
          { weekday: 6, start: "10:00", end: "24:00" },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    const hours = res.body.hours;
    expect(Object.keys(hours).sort()).toEqual(HOURS_KEYS);
    expect(hours).toMatchObject({
      agent_uuid: null,
      timezone: "America/Chicago",
      slot_minutes: 45,
      slot_minutes_source: "calendar",
      days: [
        { weekday: 1, start: "08:00", end: "12:00" },
        { weekday: 1, start: "13:00", end: "17:00" },
        { weekday: 3, start: "13:00", end: "17:00" },
        { weekday: 6, start: "10:00", end: "24:00" },
      ],
    });
    expect(hours.created_at).toMatch(ISO);
    expect(hours.updated_at).toMatch(ISO);

    const read = await api("GET", "/calendar/hours", { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, hours });
  });

  it("replaces the whole week on a second PUT, keeping created_at", async () => {
    const { token } = await setupAgency();
    const first = await openBusinessHours(token);
    const second = await putHours(token, { timezone: "Europe/Berlin", slot_minutes: 60, days: [{ weekday: 2, start: "10:00", end: "12:00" }] });
    expect(second.days).toEqual([{ weekday: 2, start: "10:00", end: "12:00" }]);
    expect(second.timezone).toBe("Europe/Berlin");
    expect(second.slot_minutes).toBe(60);
    expect(second.created_at).toBe(first.created_at);
    expect(second.updated_at >= first.updated_at).toBe(true);
    expect((await api("GET", "/calendar/hours", { token })).body.hours).toEqual(second);
  });

  it("defaults the timezone to the agency's and the slot to booking.default_slot_minutes (30); an empty week closes the calendar", async () => {
    const agencyUuid = await createAgency("Phoenix agency", "America/Phoenix");
    const { token } = await createKey(agencyUuid, { scopes: ["appointments", "calendar"] });
    const hours = await putHours(token, { days: [] });
    expect(hours).toMatchObject({ timezone: "America/Phoenix", slot_minutes: 30, slot_minutes_source: "settings", days: [] });
    const date = nextWeekday(2);
    expect((await availability(token, date, date)).dates).toEqual([]);
  });

  it.each(TEAM_MEMBER_ALIASES)("sets a team member's own calendar named by `%s` in the query or the body", async (alias) => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token);

    const viaQuery = await putHours(token, { timezone: "America/Denver", days: [{ weekday: 1, start: "10:00", end: "11:00" }] }, `?${alias}=${member}`);
    expect(viaQuery.agent_uuid).toBe(member);
    expect(viaQuery.timezone).toBe("America/Denver");

    const viaBody = await putHours(token, { timezone: "America/Denver", days: [{ weekday: 2, start: "10:00", end: "11:00" }], [alias]: member.toUpperCase() });
    expect(viaBody.agent_uuid).toBe(member);
    expect(viaBody.days).toEqual([{ weekday: 2, start: "10:00", end: "11:00" }]);

    // The member's calendar is its own: the agency calendar is untouched.
    const agencyHours = (await api("GET", "/calendar/hours", { token })).body.hours;
    expect(agencyHours.agent_uuid).toBeNull();
    expect(agencyHours.days).toEqual(WEEKDAYS_9_TO_5);
    const memberHours = (await api("GET", `/calendar/hours?${alias}=${member}`, { token })).body.hours;
    expect(memberHours).toEqual(viaBody);
  });

  const valid = { timezone: NEW_YORK, slot_minutes: 30, days: [{ weekday: 1, start: "09:00", end: "17:00" }] };
  const withDays = (...days: unknown[]) => ({ ...valid, days });

  it.each<[string, Record<string, unknown>, string]>([
    ["a start that is not HH:MM", withDays({ weekday: 1, start: "9:00", end: "17:00" }), "days.0.start: must be a time of day HH:MM, from 00:00 to 23:59"],
    ["a start of 24:00", withDays({ weekday: 1, start: "24:00", end: "24:00" }), "days.0.start: must be a time of day HH:MM, from 00:00 to 23:59"],
    ["an end of 17:60", withDays({ weekday: 1, start: "09:00", end: "17:60" }), "days.0.end: must be a time of day HH:MM, from 00:01 to 24:00"],
    ["a numeric time", withDays({ weekday: 1, start: 900, end: "17:00" }), "days.0.start: must be a time of day HH:MM, from 00:00 to 23:59"],
    ["start after end", withDays({ weekday: 1, start: "17:00", end: "09:00" }), "days.0.end must be after days.0.start"],
    ["start equal to end", withDays({ weekday: 2, start: "09:00", end: "09:00" }), "days.0.end must be after days.0.start"],
    [
      "overlapping ranges on one weekday",
      withDays({ weekday: 1, start: "09:00", end: "13:00" }, { weekday: 2, start: "09:00", end: "13:00" }, { weekday: 1, start: "12:00", end: "15:00" }),
      "days.2 (Monday 12:00-15:00) overlaps days.0 (Monday 09:00-13:00)",
    ],
    [
      "the same range twice",
      withDays({ weekday: 5, start: "09:00", end: "10:00" }, { weekday: 5, start: "09:00", end: "10:00" }),
      "days.1 (Friday 09:00-10:00) overlaps days.0 (Friday 09:00-10:00)",
    ],
    ["a range shorter than one slot", { ...withDays({ weekday: 1, start: "09:00", end: "09:20" }), slot_minutes: 30 }, "days.0 is shorter than one slot (30 minutes)"],
    ["a weekday of 7", withDays({ weekday: 7, start: "09:00", end: "17:00" }), "days.0.weekday: must be an integer from 0 (Sunday) to 6 (Saturday)"],
    ["a weekday name", withDays({ weekday: "monday", start: "09:00", end: "17:00" }), "days.0.weekday: must be an integer from 0 (Sunday) to 6 (Saturday)"],
    ["an unknown timezone", { ...valid, timezone: "Mars/Olympus_Mons" }, "timezone must be an IANA time zone name, e.g. America/New_York"],
    ["a UTC offset as timezone", { ...valid, timezone: "+02:00" }, "timezone must be an IANA time zone name, e.g. America/New_York"],
    ["slot_minutes below 5", { ...valid, slot_minutes: 4 }, "slot_minutes must be a whole number from 5 to 240, in steps of 5"],
    ["slot_minutes above 240", { ...valid, slot_minutes: 245 }, "slot_minutes must be a whole number from 5 to 240, in steps of 5"],
    ["slot_minutes not a step of 5", { ...valid, slot_minutes: 32 }, "slot_minutes must be a whole number from 5 to 240, in steps of 5"],
    ["slot_minutes as a string", { ...valid, slot_minutes: "30" }, "slot_minutes must be a whole number from 5 to 240, in steps of 5"],
    ["no days", { timezone: NEW_YORK }, "days is required"],
    ["days that is not an array", { ...valid, days: { weekday: 1 } }, "days must be an array of { weekday, start, end } ranges"],
    ["more than 50 ranges", withDays(...Array.from({ length: 51 }, (_, i) => ({ weekday: i % 7, start: `${String(i % 24).padStart(2, "0")}:00`, end: "24:00" }))), "days may contain at most 50 ranges"],
    ["an unknown field", { ...valid, holidays: [] }, "Unknown field: holidays"],
    ["a malformed team member", { ...valid, agent_uuid: "dana" }, "agent_uuid must be a UUID"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { token } = await setupAgency();
    expectError(await api("PUT", "/calendar/hours", { token, body }), 400, message, "validation_error");
    expectError(await api("GET", "/calendar/hours", { token }), 404);
  });

  it("checks that each range holds one slot of booking.default_slot_minutes when the body sends no slot_minutes", async () => {
    const { token } = await setupAgency();
    await setBookingSettings(token, { default_slot_minutes: 60 });
    const body = { timezone: NEW_YORK, days: [{ weekday: 1, start: "09:00", end: "12:00" }, { weekday: 2, start: "09:00", end: "09:45" }] };
    const res = await api("PUT", "/calendar/hours", { token, body });
    expectError(res, 400, "days.1 is shorter than one slot (60 minutes)", "validation_error");
    expect(res.body.details).toEqual([{ field: "days.1", message: "days.1 is shorter than one slot (60 minutes)" }]);
    expectError(await api("GET", "/calendar/hours", { token }), 404);
    expect(await putHours(token, { ...body, slot_minutes: 45 })).toMatchObject({ slot_minutes: 45, slot_minutes_source: "calendar" });
  });

  it("accepts ranges that touch", async () => {
    const { token } = await setupAgency();
    const hours = await putHours(token, withDays({ weekday: 1, start: "12:00", end: "15:00" }, { weekday: 1, start: "09:00", end: "12:00" }));
    expect(hours.days).toEqual([
      { weekday: 1, start: "09:00", end: "12:00" },
      { weekday: 1, start: "12:00", end: "15:00" },
    ]);
  });

  it("rejects a team member of another agency, or a random one, with 400 and changes nothing", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const outsider = await createMember(other.agencyUuid);
    for (const member of [outsider, RANDOM_UUID]) {
      expectError(await api("PUT", `/calendar/hours?agent_uuid=${member}`, { token, body: valid }), 400, "Team member not found in this agency");
      expectError(await api("PUT", "/calendar/hours", { token, body: { ...valid, user: member } }), 400, "Team member not found in this agency");
    }
    expectError(await api("GET", `/calendar/hours?agent_uuid=${outsider}`, { token: other.token }), 404);
    expectError(await api("GET", "/calendar/hours", { token }), 404);
  });

  it("rejects two different team members at once", async () => {
    const { agencyUuid, token } = await setupAgency();
    const dana = await createMember(agencyUuid);
    const eli = await createMember(agencyUuid);
    const res = await api("PUT", `/calendar/hours?agent_uuid=${dana}`, { token, body: { ...valid, user_uuid: eli } });
    expectError(res, 400, /Give one team member/);
  });

  it("requires the appointments scope, which a calendar key does not have", async () => {
    const { agencyUuid } = await setupAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["calendar"] });
    expectError(await api("PUT", "/calendar/hours", { token, body: valid }), 403, "Token missing required scope: appointments");
  });
});

// ---------------------------------------------------------------------------------------
// GET /calendar/hours
// ---------------------------------------------------------------------------------------

describe("GET /calendar/hours", () => {
  it("is 404 until hours are set, for the agency and for each team member", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    expectError(await api("GET", "/calendar/hours", { token }), 404, "No working hours are set for this calendar", "not_found");
    await openBusinessHours(token);
    expect((await api("GET", "/calendar/hours", { token })).status).toBe(200);
    // A member's calendar does not inherit the agency's hours.
    expectError(await api("GET", `/calendar/hours?agent=${member}`, { token }), 404, "No working hours are set for this calendar");
  });

  it("never shows another agency's hours", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await openBusinessHours(a.token);
    expectError(await api("GET", "/calendar/hours", { token: b.token }), 404);
  });

  it("rejects a team member of another agency or a random uuid with 400", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const outsider = await createMember(other.agencyUuid);
    await openBusinessHours(other.token, `?agent_uuid=${outsider}`);
    for (const member of [outsider, RANDOM_UUID]) {
      expectError(await api("GET", `/calendar/hours?agentUuid=${member}`, { token }), 400, "Team member not found in this agency");
    }
    expectError(await api("GET", "/calendar/hours?agent_uuid=nope", { token }), 400, "agent_uuid must be a UUID");
  });
});

// ---------------------------------------------------------------------------------------
// GET /calendar/availability
// ---------------------------------------------------------------------------------------

describe("GET /calendar/availability", () => {
  it("lists one day's free slots with UTC instants and New York wall-clock times", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(3);
    const res = await api("GET", `/calendar/availability?from=${date}&to=${date}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { availability: av } = res.body;
    expect(Object.keys(av).sort()).toEqual(["agent_uuid", "dates", "from", "slot_minutes", "timezone", "to"]);
    expect(av).toMatchObject({ agent_uuid: null, timezone: NEW_YORK, slot_minutes: 30, from: date, to: date });
    expect(av.dates).toHaveLength(1);
    const day = av.dates[0];
    expect(Object.keys(day).sort()).toEqual(["date", "slots", "weekday"]);
    expect(day.date).toBe(date);
    expect(day.weekday).toBe(3);
    expect(day.slots.map((s: any) => s.time)).toEqual(BUSINESS_TIMES);
    for (const slot of day.slots) {
      expect(Object.keys(slot).sort()).toEqual(SLOT_KEYS);
      expect(slot.start_at).toMatch(ISO);
      expect(Date.parse(slot.end_at) - Date.parse(slot.start_at)).toBe(HALF_HOUR);
      // The local form names the same instant, on the requested date, at New York's offset.
      expect(slot.local_start).toMatch(new RegExp(`^${date}T${slot.time}:00\\.000-0[45]:00$`));
      expect(Date.parse(slot.local_start)).toBe(Date.parse(slot.start_at));
      expect(Date.parse(slot.local_end)).toBe(Date.parse(slot.end_at));
    }
    const offset = day.slots[0].local_start.slice(-6) === "-05:00" ? -300 : -240;
    expect(day.slots[0].start_at).toBe(atOffset(date, "09:00", offset));
    expect(day.slots[15].end_at).toBe(atOffset(date, "17:00", offset));
  });

  it("is right on both sides of the next New York DST change, with no missing or doubled hour", async () => {
    const change = nextDstChange(NEW_YORK);
    const { token } = await setupAgency();
    await putHours(token, {
      timezone: NEW_YORK,
      slot_minutes: 60,
      days: [
        { weekday: weekdayOf(change.date), start: "00:00", end: "05:00" },
        ...[0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: "09:00", end: "10:00" })),
      ],
    });
    const before = addDays(change.date, -1);
    const after = addDays(change.date, 1);
    const av = await availability(token, before, after);
    expect(av.dates.map((d: any) => d.date)).toEqual([before, change.date, after]);
    const [dayBefore, dayOf, dayAfter] = av.dates;

    expect(dayBefore.slots.map((s: any) => s.start_at)).toEqual([atOffset(before, "09:00", change.before)]);
    expect(dayAfter.slots.map((s: any) => s.start_at)).toEqual([atOffset(after, "09:00", change.after)]);

    // The night block runs from local midnight (old offset) to 05:00 (new offset) in whole real hours.
    const nightStart = Date.parse(atOffset(change.date, "00:00", change.before));
    const nightEnd = Date.parse(atOffset(change.date, "05:00", change.after));
    const expectedNight = Array.from({ length: (nightEnd - nightStart) / HOUR }, (_, i) => iso(nightStart + i * HOUR));
    expect(expectedNight).toHaveLength(5 + (change.before - change.after) / 60);
    const night = dayOf.slots.slice(0, -1);
    expect(night.map((s: any) => s.start_at)).toEqual(expectedNight);
    expect(new Set(night.map((s: any) => s.start_at)).size).toBe(night.length);
    expect(night.map((s: any) => s.time)).toEqual(
      change.after > change.before ? ["00:00", "01:00", "03:00", "04:00"] : ["00:00", "01:00", "01:00", "02:00", "03:00", "04:00"],
    );
    expect(dayOf.slots.at(-1).start_at).toBe(atOffset(change.date, "09:00", change.after));
    expect(dayOf.slots.at(-1).time).toBe("09:00");
  });

  it("accepts a range of exactly 90 days and rejects 91", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const from = addDays(today(), 1);
    const to = addDays(from, 89);
    const av = await availability(token, from, to);
    expect(av.dates).toHaveLength(countWeekdays(from, to, [1, 2, 3, 4, 5]));
    expect(av.dates[0].date >= from).toBe(true);
    expect(av.dates.at(-1).date <= to).toBe(true);
    for (const day of av.dates) {
      expect([1, 2, 3, 4, 5]).toContain(weekdayOf(day.date));
      expect(day.slots.map((s: any) => s.time)).toEqual(BUSINESS_TIMES);
    }
    const tooLong = await api("GET", `/calendar/availability?from=${from}&to=${addDays(from, 90)}`, { token });
    expectError(tooLong, 400, "Date range must be between 1 and 90 days inclusive.", "validation_error");
  });

  it("never offers a slot that has already started, and nothing for past dates", async () => {
    const { token } = await setupAgency();
    const everyDay = [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: "00:00", end: "24:00" }));
    await putHours(token, { timezone: "UTC", slot_minutes: 5, days: everyDay });
    // Without minimum notice, the first slot offered is the first that has not started.
    await setBookingSettings(token, { min_notice_minutes: 0 });
    const date = today("UTC");
    const t0 = Date.now();
    const av = await availability(token, addDays(date, -1), date);
    const t1 = Date.now();
    expect(av.dates.map((d: any) => d.date)).not.toContain(addDays(date, -1));
    const starts = av.dates.flatMap((d: any) => d.slots.map((s: any) => Date.parse(s.start_at)));
    if (starts.length === 0) {
      // Only possible in the last five minutes of the UTC day.
      expect(Date.parse(`${addDays(date, 1)}T00:00:00.000Z`) - t0).toBeLessThanOrEqual(5 * 60_000);
    } else {
      expect(starts[0]).toBeGreaterThan(t0);
      // The slot before the first one offered had already started.
      expect(starts[0]! - 5 * 60_000).toBeLessThanOrEqual(t1);
      expect(starts.at(-1)).toBe(Date.parse(`${date}T23:55:00.000Z`));
    }
    expect((await availability(token, addDays(date, -3), addDays(date, -1))).dates).toEqual([]);
  });

  it("hides a booked slot and offers it again after the appointment is canceled", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(4);
    const before = await freeStarts(token, date);
    const slot = before[3];
    const appointment = await book(token, slot);
    const during = await freeStarts(token, date);
    expect(during).toEqual(before.filter((s: string) => s !== slot));
    const cancel = await api("POST", `/appointments/${appointment.appointment_uuid}/cancel`, { token });
    expect(cancel.status).toBe(200);
    expect(await freeStarts(token, date)).toEqual(before);
  });

  it("follows booking.default_slot_minutes for hours set without slot_minutes, also after it changes; hours with their own ignore it", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    const tuesday = [{ weekday: 2, start: "09:00", end: "11:00" }];
    expect(await putHours(token, { timezone: NEW_YORK, days: tuesday })).toMatchObject({ slot_minutes: 30, slot_minutes_source: "settings" });
    const own = await putHours(token, { timezone: NEW_YORK, slot_minutes: 45, days: tuesday }, `?agent_uuid=${member}`);
    expect(own).toMatchObject({ slot_minutes: 45, slot_minutes_source: "calendar" });
    const date = nextWeekday(2);
    const offered = async (extra = "") => {
      const av = await availability(token, date, date, extra);
      return { slot_minutes: av.slot_minutes, times: av.dates[0].slots.map((s: any) => s.time) };
    };
    expect(await offered()).toEqual({ slot_minutes: 30, times: ["09:00", "09:30", "10:00", "10:30"] });
    expect(await offered(`&agent_uuid=${member}`)).toEqual({ slot_minutes: 45, times: ["09:00", "09:45"] });

    await setBookingSettings(token, { default_slot_minutes: 60 });
    expect(await offered()).toEqual({ slot_minutes: 60, times: ["09:00", "10:00"] });
    expect((await api("GET", "/calendar/hours", { token })).body.hours).toMatchObject({ slot_minutes: 60, slot_minutes_source: "settings" });
    expect(await offered(`&agent_uuid=${member}`)).toEqual({ slot_minutes: 45, times: ["09:00", "09:45"] });
    expect((await api("GET", `/calendar/hours?agent_uuid=${member}`, { token })).body.hours).toEqual(own);
    // An appointment lasts one slot of the length in force when it is booked.
    const [nine] = await freeStarts(token, date);
    expect((await book(token, nine)).end_at).toBe(iso(Date.parse(nine) + HOUR));
  });

  it("applies booking.min_notice_minutes and booking.buffer_minutes across the March 2027 spring-forward night", async () => {
    setClock("2027-03-13T12:00:00.000Z"); // Saturday 07:00 in New York (EST)
    const { token } = await setupAgency();
    // Sunday 2027-03-14: 02:00 EST becomes 03:00 EDT, so 01:00-04:00 lasts two real hours.
    await putHours(token, {
      timezone: NEW_YORK,
      slot_minutes: 30,
      days: [
        { weekday: 0, start: "01:00", end: "04:00" },
        { weekday: 0, start: "09:00", end: "11:00" },
      ],
    });
    const offered = async () =>
      (await availability(token, "2027-03-14", "2027-03-14")).dates.flatMap((d: any) => d.slots.map((s: any) => [s.start_at, s.time]));
    // The default settings (60 minutes' notice, no buffer) rule nothing out this far ahead.
    expect(await offered()).toEqual([
      ["2027-03-14T06:00:00.000Z", "01:00"],
      ["2027-03-14T06:30:00.000Z", "01:30"],
      ["2027-03-14T07:00:00.000Z", "03:00"],
      ["2027-03-14T07:30:00.000Z", "03:30"],
      ["2027-03-14T13:00:00.000Z", "09:00"],
      ["2027-03-14T13:30:00.000Z", "09:30"],
      ["2027-03-14T14:00:00.000Z", "10:00"],
      ["2027-03-14T14:30:00.000Z", "10:30"],
    ]);
    await book(token, "2027-03-14T13:30:00.000Z");
    await setBookingSettings(token, { min_notice_minutes: 420, buffer_minutes: 30 });
    setClock("2027-03-13T23:30:00.000Z"); // Saturday 18:30 EST: 420 minutes on is 06:30Z, 01:30 EST
    // 06:00 is too soon; the appointment at 13:30-14:00 blocks 13:00-14:30 with its buffer.
    expect(await offered()).toEqual([
      ["2027-03-14T06:30:00.000Z", "01:30"],
      ["2027-03-14T07:00:00.000Z", "03:00"],
      ["2027-03-14T07:30:00.000Z", "03:30"],
      ["2027-03-14T14:30:00.000Z", "10:30"],
    ]);
    setClock("2027-03-13T23:31:00.000Z");
    expect((await offered())[0]).toEqual(["2027-03-14T07:00:00.000Z", "03:00"]);
    await setBookingSettings(token, { min_notice_minutes: 0, buffer_minutes: 0 });
    expect((await offered()).map(([at]) => at)).toEqual([
      "2027-03-14T06:00:00.000Z",
      "2027-03-14T06:30:00.000Z",
      "2027-03-14T07:00:00.000Z",
      "2027-03-14T07:30:00.000Z",
      "2027-03-14T13:00:00.000Z",
      "2027-03-14T14:00:00.000Z",
      "2027-03-14T14:30:00.000Z",
    ]);
  });

  it("sees an appointment just before the range when the buffer reaches into it (UTC+14)", async () => {
    setClock("2027-03-10T12:00:00.000Z");
    const { token } = await setupAgency();
    // Saturday 23:00-24:00 and Sunday 00:00-01:00 in Kiritimati (UTC+14, no DST).
    await putHours(token, {
      timezone: "Pacific/Kiritimati",
      slot_minutes: 30,
      days: [
        { weekday: 6, start: "23:00", end: "24:00" },
        { weekday: 0, start: "00:00", end: "01:00" },
      ],
    });
    // Saturday 23:30-24:00 local, which ends exactly at Sunday's first instant.
    await book(token, "2027-03-13T09:30:00.000Z");
    const sunday = async () => (await availability(token, "2027-03-14", "2027-03-14")).dates.flatMap((d: any) => d.slots.map((s: any) => s.start_at));
    expect(await sunday()).toEqual(["2027-03-13T10:00:00.000Z", "2027-03-13T10:30:00.000Z"]);
    await setBookingSettings(token, { buffer_minutes: 30 });
    expect(await sunday()).toEqual(["2027-03-13T10:30:00.000Z"]);
  });

  it("answers for the first and the last dates YYYY-MM-DD can name", async () => {
    const { token } = await setupAgency();
    await putHours(token, { timezone: "Pacific/Apia", slot_minutes: 240, days: [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start: "00:00", end: "24:00" })) });
    expect((await availability(token, "0000-01-01", "0000-01-02")).dates).toEqual([]);
    const last = await availability(token, "9999-12-30", "9999-12-31");
    expect(last.dates.map((d: any) => [d.date, d.slots.length])).toEqual([["9999-12-30", 6], ["9999-12-31", 6]]);
  });

  it("offers and books no slot that ends after year 9999 in UTC (New York, UTC-5)", async () => {
    const { token } = await setupAgency();
    await putHours(token, { timezone: NEW_YORK, slot_minutes: 60, days: [{ weekday: 5, start: "00:00", end: "24:00" }] });
    // Friday 9999-12-31 in New York: 05:00Z to 05:00Z of year 10000; the slot from 18:00 local would end there.
    const [last] = (await availability(token, "9999-12-31", "9999-12-31")).dates;
    expect(last.slots).toHaveLength(18);
    expect(last.slots.at(-1)).toMatchObject({ start_at: "9999-12-31T22:00:00.000Z", end_at: "9999-12-31T23:00:00.000Z", time: "17:00" });
    for (const slot of last.slots) expect([slot.start_at, slot.end_at]).toEqual([expect.stringMatching(ISO), expect.stringMatching(ISO)]);
    expectError(await api("POST", "/calendar/bookings", { token, body: bookingBody("9999-12-31T18:00:00.000-05:00") }), 409, SLOT_TAKEN, "conflict");
    expect((await book(token, "9999-12-31T17:00:00.000-05:00")).end_at).toBe("9999-12-31T23:00:00.000Z");
  });

  it("is 400 for a calendar without hours (misconfigured calendar)", async () => {
    const { agencyUuid, token } = await setupAgency();
    const date = nextWeekday(1);
    expectError(await api("GET", `/calendar/availability?from=${date}&to=${date}`, { token }), 400, MISCONFIGURED, "validation_error");
    await openBusinessHours(token);
    const member = await createMember(agencyUuid);
    expectError(await api("GET", `/calendar/availability?from=${date}&to=${date}&agent_uuid=${member}`, { token }), 400, MISCONFIGURED);
  });

  it.each<[string, string, string]>([
    ["a date not in YYYY-MM-DD", "from=2026-12-1&to=2026-12-02", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["an impossible date", "from=2026-02-30&to=2026-03-02", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["a missing to", "from=2026-12-01", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["no dates at all", "", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["to before from", "from=2026-12-02&to=2026-12-01", "Date range must be between 1 and 90 days inclusive."],
    ["91 days", "from=2027-01-01&to=2027-04-01", "Date range must be between 1 and 90 days inclusive."],
  ])("rejects %s with the specification's message", async (_name, query, message) => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    expectError(await api("GET", `/calendar/availability?${query}`, { token }), 400, message, "validation_error");
  });

  it.each(TEAM_MEMBER_ALIASES)("lists a team member's calendar named by `%s` in the query", async (alias) => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token);
    await putHours(token, { timezone: "America/Los_Angeles", slot_minutes: 60, days: [{ weekday: 2, start: "10:00", end: "12:00" }] }, `?agent_uuid=${member}`);
    const date = nextWeekday(2);
    const av = await availability(token, date, date, `&${alias}=${member}`);
    expect(av).toMatchObject({ agent_uuid: member, timezone: "America/Los_Angeles", slot_minutes: 60 });
    expect(av.dates[0].slots.map((s: any) => s.time)).toEqual(["10:00", "11:00"]);
    // The member's bookings do not touch the agency calendar, and the other way round.
    await book(token, av.dates[0].slots[0].start_at, { agent_uuid: member });
    expect((await availability(token, date, date, `&${alias}=${member}`)).dates[0].slots.map((s: any) => s.time)).toEqual(["11:00"]);
    expect((await availability(token, date, date)).dates[0].slots).toHaveLength(16);
  });

  it("rejects a team member of another agency, a random one, or two different ones with 400", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const other = await setupAgency();
    const outsider = await createMember(other.agencyUuid);
    await openBusinessHours(other.token, `?agent_uuid=${outsider}`);
    const date = nextWeekday(2);
    for (const member of [outsider, RANDOM_UUID]) {
      const res = await api("GET", `/calendar/availability?from=${date}&to=${date}&user=${member}`, { token });
      expectError(res, 400, "Team member not found in this agency", "validation_error");
    }
    const dana = await createMember(agencyUuid);
    const res = await api("GET", `/calendar/availability?from=${date}&to=${date}&agent=${dana}&user_uuid=${outsider}`, { token });
    expectError(res, 400, /Give one team member/);
  });

  it("answers from one D1 round trip, reading no more rows when the agency holds many unrelated rows", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const member = await createMember(agencyUuid);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const from = nextWeekday(1);
    const to = addDays(from, 29);
    // Two live appointments inside the range: they must be read (and hide their slots).
    const free = await freeStarts(token, from);
    await book(token, free[0]);
    await book(token, free[5]);
    const path = `/calendar/availability?from=${from}&to=${to}`;

    const before = await measured(path, token);
    expect(before.status).toBe(200);
    expect(before.roundTrips).toBe(1);
    // The calendar's hours, the agency (for its booking settings; none stored) and its two
    // appointments (and the index entry where the scan stops).
    expect(before.rowsRead).toBeLessThanOrEqual(5);
    const forMember = await measured(`${path}&agent_uuid=${member}`, token);
    expect(forMember.status).toBe(200);
    expect(forMember.body.availability.agent_uuid).toBe(member);
    expect(forMember.roundTrips).toBe(1);

    // 300 contacts and appointments before, after and (canceled, or another member's) inside the range.
    await addUnrelatedRows(agencyUuid, from, to);
    const after = await measured(path, token);
    expect(after.body).toEqual(before.body);
    expect(after.roundTrips).toBe(1);
    // At most the one index entry past the range's end, where the index scan stops.
    expect(after.rowsRead).toBeLessThanOrEqual(before.rowsRead + 1);
    await addUnrelatedRows(agencyUuid, from, to);
    expect((await measured(path, token)).rowsRead).toBe(after.rowsRead);
    expect((await measured(`${path}&agent_uuid=${member}`, token)).rowsRead).toBeLessThanOrEqual(forMember.rowsRead + 1);

    // The errors are decided from the same single batch.
    const outsider = await createMember((await setupAgency()).agencyUuid);
    const foreign = await measured(`${path}&agent_uuid=${outsider}`, token);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe("Team member not found in this agency");
    expect(foreign.roundTrips).toBe(1);
    const noHours = await measured(`${path}&agent_uuid=${await createMember(agencyUuid)}`, token);
    expect(noHours.status).toBe(400);
    expect(noHours.body.error).toBe(MISCONFIGURED);
    expect(noHours.roundTrips).toBe(1);
    // GET /calendar/hours checks the member and reads the hours in one batch too.
    const memberHours = await measured(`/calendar/hours?agent_uuid=${member}`, token);
    expect(memberHours.status).toBe(200);
    expect(memberHours.roundTrips).toBe(1);
  });

  it("is readable with a calendar-only key and with a legacy calendar token", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(5);
    const expected = await availability(token, date, date);
    const calendarKey = await createKey(agencyUuid, { scopes: ["calendar"], expires: false });
    expect(await availability(calendarKey.token, date, date)).toEqual(expected);
    const legacy = await createLegacyCalendarToken(agencyUuid);
    expect(await availability(legacy, date, date)).toEqual(expected);
    // ... and the legacy token is limited to its agency and to `calendar`.
    expectError(await api("GET", "/calendar/hours", { token: legacy }), 403, "Token missing required scope: appointments");
  });

  it("requires the calendar scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const { token: appointmentsOnly } = await createKey(agencyUuid, { scopes: ["appointments"] });
    const res = await api("GET", "/calendar/availability?from=2026-12-01&to=2026-12-02", { token: appointmentsOnly });
    expectError(res, 403, "Token missing required scope: calendar", "insufficient_scope");
  });
});

// ---------------------------------------------------------------------------------------
// POST /calendar/bookings
// ---------------------------------------------------------------------------------------

describe("POST /calendar/bookings", () => {
  it("books a free slot, creating the contact, and answers 201 with the appointment", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(2);
    const [slot] = await freeStarts(token, date);
    const res = await api("POST", "/calendar/bookings", {
      token,
      body: { start_at: slot, first_name: " Ada ", last_name: "Lovelace", email: "Ada@Example.com", phone: "(415) 555-0123", notes: "Prefers mornings", title: "Buyer consultation" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const appointment = res.body.appointment;
    expect(Object.keys(appointment).sort()).toEqual(APPOINTMENT_KEYS);
    expect(appointment).toMatchObject({
      contact_name: "Ada Lovelace",
      agent_uuid: null,
      start_at: slot,
      end_at: iso(Date.parse(slot) + HALF_HOUR),
      status: "booked",
      title: "Buyer consultation",
      notes: "Prefers mornings",
      booking_widget_uuid: null,
      path_uuid: null,
      canceled_at: null,
    });
    expect(appointment.created_at).toMatch(ISO);

    const contact = await api("GET", `/contacts/${appointment.contact_uuid}`, { token });
    expect(contact.status).toBe(200);
    expect(contact.body.contact).toMatchObject({ first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", phone: "+14155550123" });

    const read = await api("GET", `/appointments/${appointment.appointment_uuid}`, { token });
    expect(read.body.appointment).toEqual(appointment);
  });

  it("accepts start_at with an offset for the same instant", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(2);
    const slots = await availability(token, date, date);
    const slot = slots.dates[0].slots[1];
    const appointment = await book(token, slot.local_start);
    expect(appointment.start_at).toBe(slot.start_at);
  });

  it("reuses a live contact found by email, then by phone, or given by contact_uuid", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const created = await api("POST", "/contacts", { token, body: { first_name: "Grace", last_name: "Hopper", email: "grace@navy.mil", phone: "+12125550199" } });
    const graceUuid = created.body.contact.contact_uuid;
    const slots = await freeStarts(token, nextWeekday(3));

    const byEmail = await book(token, slots[0], { first_name: "G", last_name: "H", email: "GRACE@navy.mil" });
    const byPhone = await book(token, slots[1], { first_name: "G", last_name: "H", email: undefined, phone: "212-555-0199" });
    const byUuid = await book(token, slots[2], { contact_uuid: graceUuid, first_name: undefined, last_name: undefined, email: undefined });
    for (const a of [byEmail, byPhone, byUuid]) {
      expect(a.contact_uuid).toBe(graceUuid);
      expect(a.contact_name).toBe("Grace Hopper");
    }
    // Reused unchanged, and no new contacts.
    expect((await api("GET", `/contacts/${graceUuid}`, { token })).body.contact.first_name).toBe("Grace");
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("rejects a contact_uuid that is not a live contact of the agency with 400", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const other = await setupAgency();
    const theirs = (await api("POST", "/contacts", { token: other.token, body: { first_name: "O", last_name: "P" } })).body.contact.contact_uuid;
    const deleted = (await api("POST", "/contacts", { token, body: { first_name: "D", last_name: "E" } })).body.contact.contact_uuid;
    await api("DELETE", `/contacts/${deleted}`, { token });
    const [slot] = await freeStarts(token, nextWeekday(3));
    for (const contactUuid of [theirs, deleted, RANDOM_UUID]) {
      const res = await api("POST", "/calendar/bookings", { token, body: { start_at: slot, contact_uuid: contactUuid } });
      expectError(res, 400, "Contact not found", "validation_error");
    }
    expect(await freeStarts(token, nextWeekday(3))).toContain(slot);
  });

  it.each<[string, (date: string) => string]>([
    ["on a closed weekday (Saturday)", () => `${nextWeekday(6)}T14:00:00.000Z`],
    ["before opening", (date) => atOffset(date, "08:30", newYorkOffset(date))],
    ["between slot starts", (date) => atOffset(date, "10:10", newYorkOffset(date))],
    ["after closing", (date) => atOffset(date, "17:00", newYorkOffset(date))],
    ["in the past", () => "2026-01-06T14:00:00.000Z"],
  ])("answers 409 with the specification's message for a slot %s", async (_name, startOf) => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const date = nextWeekday(2);
    const res = await api("POST", "/calendar/bookings", { token, body: bookingBody(startOf(date)) });
    expectError(res, 409, SLOT_TAKEN, "conflict");
  });

  it("answers 409 for a taken slot and books it again after a cancel", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [slot] = await freeStarts(token, nextWeekday(1));
    const first = await book(token, slot);
    expectError(await api("POST", "/calendar/bookings", { token, body: bookingBody(slot) }), 409, SLOT_TAKEN, "conflict");
    await api("POST", `/appointments/${first.appointment_uuid}/cancel`, { token });
    const again = await book(token, slot);
    expect(again.start_at).toBe(slot);
    expect(again.appointment_uuid).not.toBe(first.appointment_uuid);
  });

  it("answers 409 for a slot that breaks each booking setting, and books the same slot once the setting allows it", async () => {
    setClock("2027-03-01T13:00:00.000Z"); // Monday 08:00 in New York (EST, UTC-5)
    const { token } = await setupAgency();
    // Hours without slot_minutes: slots of booking.default_slot_minutes.
    await putHours(token, { timezone: NEW_YORK, days: WEEKDAYS_9_TO_5 });
    const refused = async (startAt: string) =>
      expectError(await api("POST", "/calendar/bookings", { token, body: bookingBody(startAt) }), 409, SLOT_TAKEN, "conflict");

    // Minimum notice: 09:30 EST is 90 minutes away.
    await setBookingSettings(token, { min_notice_minutes: 120 });
    await refused("2027-03-01T14:30:00.000Z");
    await setBookingSettings(token, { min_notice_minutes: 90 });
    expect((await book(token, "2027-03-01T14:30:00.000Z")).start_at).toBe("2027-03-01T14:30:00.000Z");

    // Buffer: a 15-minute buffer around 13:00-13:30 EST blocks 12:45-13:45.
    await book(token, "2027-03-01T18:00:00.000Z");
    await setBookingSettings(token, { buffer_minutes: 15 });
    await refused("2027-03-01T17:30:00.000Z"); // ends within the buffer before it
    await refused("2027-03-01T18:30:00.000Z"); // starts within the buffer after it
    expect((await book(token, "2027-03-01T17:00:00.000Z")).end_at).toBe("2027-03-01T17:30:00.000Z");
    await setBookingSettings(token, { buffer_minutes: 0 });
    await book(token, "2027-03-01T17:30:00.000Z");
    await book(token, "2027-03-01T18:30:00.000Z");

    // Slot length: with 60-minute slots, 15:30 EST is not the start of a slot.
    await setBookingSettings(token, { default_slot_minutes: 60 });
    await refused("2027-03-01T20:30:00.000Z");
    expect((await book(token, "2027-03-01T19:00:00.000Z")).end_at).toBe("2027-03-01T20:00:00.000Z");
    await setBookingSettings(token, { default_slot_minutes: 30 });
    expect((await book(token, "2027-03-01T20:30:00.000Z")).end_at).toBe("2027-03-01T21:00:00.000Z");

    // Without notice, a slot is still bookable only before it starts.
    await setBookingSettings(token, { min_notice_minutes: 0 });
    setClock("2027-03-01T21:00:00.000Z");
    await refused("2027-03-01T21:00:00.000Z");
    await book(token, "2027-03-01T21:30:00.000Z");
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(8);
  });

  it("lets exactly one of two concurrent bookings of adjacent slots win when a buffer keeps them apart", async () => {
    setClock("2027-03-01T13:00:00.000Z");
    const { token } = await setupAgency();
    await openBusinessHours(token);
    await setBookingSettings(token, { buffer_minutes: 10 });
    // Four pairs of adjacent slots on Tuesday, each pair 90 minutes from the next.
    const pairs = ["14", "16", "18", "20"].map((hour) => [`2027-03-02T${hour}:00:00.000Z`, `2027-03-02T${hour}:30:00.000Z`]);
    const results = await Promise.all(pairs.flat().map((startAt) => api("POST", "/calendar/bookings", { token, body: bookingBody(startAt) })));
    pairs.forEach((_pair, i) => {
      expect([results[2 * i]!.status, results[2 * i + 1]!.status].sort()).toEqual([201, 409]);
    });
    for (const loser of results.filter((r) => r.status === 409)) expectError(loser, 409, SLOT_TAKEN, "conflict");
    const booked = (await api("GET", "/appointments?status=booked", { token })).body.appointments.map((a: any) => a.start_at);
    expect(booked).toEqual(results.filter((r) => r.status === 201).map((r) => r.body.appointment.start_at).sort());
    expect(booked).toHaveLength(4);
  });

  it("lets exactly one of 10 concurrent bookings of one slot win", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [slot] = await freeStarts(token, nextWeekday(2));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api("POST", "/calendar/bookings", { token, body: bookingBody(slot) })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const loser of results.filter((r) => r.status === 409)) expectError(loser, 409, SLOT_TAKEN, "conflict");
    const list = await api("GET", "/appointments?status=booked", { token });
    expect(list.body.appointments.map((a: any) => a.start_at)).toEqual([slot]);
  });

  it("lets exactly one of 10 concurrent bookings by the same new person win, with one contact", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [slot] = await freeStarts(token, nextWeekday(2));
    const body = { start_at: slot, first_name: "Ada", last_name: "Lovelace", phone: "+14155550123" };
    const results = await Promise.all(Array.from({ length: 10 }, () => api("POST", "/calendar/bookings", { token, body })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("replays a retried booking with the same Idempotency-Key instead of booking twice", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [slot] = await freeStarts(token, nextWeekday(4));
    const body = bookingBody(slot);
    const headers = { "Idempotency-Key": `booking-${crypto.randomUUID()}` };
    const first = await api("POST", "/calendar/bookings", { token, body, headers });
    const retry = await api("POST", "/calendar/bookings", { token, body, headers });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(1);
  });

  it("links a path of the agency and rejects an unknown one", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const pathUuid = await createPathRecord(agencyUuid);
    const other = await setupAgency();
    const theirPath = await createPathRecord(other.agencyUuid);
    const [slot] = await freeStarts(token, nextWeekday(1));
    for (const unknown of [RANDOM_UUID, theirPath]) {
      expectError(await api("POST", "/calendar/bookings", { token, body: bookingBody(slot, { path_uuid: unknown }) }), 400, "Unknown path_uuid");
    }
    const appointment = await book(token, slot, { path_uuid: pathUuid });
    expect(appointment.path_uuid).toBe(pathUuid);
    expect((await api("GET", `/contacts/${appointment.contact_uuid}`, { token })).body.contact.path_uuid).toBe(pathUuid);
  });

  it("books through a booking widget: its calendar, its name as default title", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const agencyWidget = await createWidget(agencyUuid, { name: "Intro call" });
    const memberWidget = await createWidget(agencyUuid, { name: "Tour with Dana", agent_uuid: member });
    const date = nextWeekday(3);
    const [slot] = await freeStarts(token, date);

    const viaAgency = await book(token, slot, { booking_widget_uuid: agencyWidget.booking_widget_uuid });
    expect(viaAgency).toMatchObject({ booking_widget_uuid: agencyWidget.booking_widget_uuid, title: "Intro call", agent_uuid: null });
    const viaMember = await book(token, slot, { booking_widget_uuid: memberWidget.booking_widget_uuid, title: "Custom" });
    expect(viaMember).toMatchObject({ booking_widget_uuid: memberWidget.booking_widget_uuid, title: "Custom", agent_uuid: member });
    // Naming the widget's own member is fine; the slot is now taken on that calendar.
    const again = await api("POST", "/calendar/bookings", { token, body: bookingBody(slot, { booking_widget_uuid: memberWidget.booking_widget_uuid, agent: member }) });
    expectError(again, 409, SLOT_TAKEN);
  });

  it("rejects an unknown, foreign, mismatched or other member's booking widget with 400", async () => {
    const { agencyUuid, token } = await setupAgency();
    const dana = await createMember(agencyUuid);
    const eli = await createMember(agencyUuid);
    await openBusinessHours(token);
    const other = await setupAgency();
    const foreign = await createWidget(other.agencyUuid);
    const hourLong = await createWidget(agencyUuid, { duration_minutes: 60 });
    const danas = await createWidget(agencyUuid, { agent_uuid: dana });
    await openBusinessHours(token, `?agent_uuid=${dana}`);
    const [slot] = await freeStarts(token, nextWeekday(3));
    const attempt = (extra: Record<string, unknown>) => api("POST", "/calendar/bookings", { token, body: bookingBody(slot, extra) });

    expectError(await attempt({ booking_widget_uuid: RANDOM_UUID }), 400, "Unknown booking_widget_uuid");
    expectError(await attempt({ booking_widget_uuid: foreign.booking_widget_uuid }), 400, "Unknown booking_widget_uuid");
    expectError(
      await attempt({ booking_widget_uuid: hourLong.booking_widget_uuid }),
      400,
      "The booking widget's duration_minutes (60) does not match the calendar's slot_minutes (30)",
    );
    expectError(await attempt({ booking_widget_uuid: danas.booking_widget_uuid, agent_uuid: eli }), 400, /another team member's calendar/);
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(0);
  });

  it.each(TEAM_MEMBER_ALIASES)("books a team member's calendar named by `%s` in the body or the query", async (alias) => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const date = nextWeekday(2);
    const [first, second] = await freeStarts(token, date, `&agent_uuid=${member}`);

    const inBody = await book(token, first, { [alias]: member });
    expect(inBody.agent_uuid).toBe(member);
    const inQuery = await book(token, second, {}, `?${alias}=${member}`);
    expect(inQuery.agent_uuid).toBe(member);
    // The same instants are still free on the agency calendar.
    const agencyFree = await freeStarts(token, date);
    expect(agencyFree).toContain(first);
    expect(agencyFree).toContain(second);
    const memberFree = await freeStarts(token, date, `&${alias}=${member}`);
    expect(memberFree).not.toContain(first);
    expect(memberFree).not.toContain(second);
  });

  it("rejects a team member of another agency with 400 and books nothing", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const other = await setupAgency();
    const outsider = await createMember(other.agencyUuid);
    await openBusinessHours(other.token, `?agent_uuid=${outsider}`);
    const [slot] = await freeStarts(token, nextWeekday(2));
    for (const alias of TEAM_MEMBER_ALIASES) {
      const res = await api("POST", "/calendar/bookings", { token, body: bookingBody(slot, { [alias]: outsider }) });
      expectError(res, 400, "Team member not found in this agency", "validation_error");
    }
    expect((await api("GET", "/appointments", { token: other.token })).body.pagination.total).toBe(0);
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(0);
  });

  it("is 400 for a calendar without hours", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/calendar/bookings", { token, body: bookingBody(`${nextWeekday(2)}T15:00:00.000Z`) });
    expectError(res, 400, MISCONFIGURED);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no names", { first_name: undefined, last_name: undefined }, "first_name and last_name are required"],
    ["no last_name", { last_name: undefined }, "first_name and last_name are required"],
    ["a blank first_name", { first_name: "  " }, "first_name and last_name are required"],
    ["neither phone nor email", { email: undefined }, "phone or email is required"],
    ["a bad phone", { phone: "12345" }, "phone must be a 10-digit US number or E.164 (e.g. +14155550123)"],
    ["a bad email", { email: "nope" }, "email must be a valid email address"],
    ["no start_at", { start_at: undefined }, "start_at is required"],
    ["a start_at without offset", { start_at: "2026-12-01T09:00:00" }, "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z"],
    ["a date as start_at", { start_at: "2026-12-01" }, "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z"],
    ["a start_at over 40 characters", { start_at: `2026-12-01T14:00:00.${"0".repeat(30)}Z` }, "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z"],
    ["a malformed contact_uuid", { contact_uuid: "abc" }, "contact_uuid must be a UUID"],
    ["a malformed booking_widget_uuid", { booking_widget_uuid: "abc" }, "booking_widget_uuid must be a UUID"],
    ["notes too long", { notes: "x".repeat(2001) }, "notes must be a string of at most 2000 characters"],
    ["an unknown field", { color: "blue" }, "Unknown field: color"],
  ])("rejects %s with 400", async (_name, extra, message) => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [slot] = await freeStarts(token, nextWeekday(2));
    const res = await api("POST", "/calendar/bookings", { token, body: bookingBody(slot, extra) });
    expectError(res, 400, message, "validation_error");
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(0);
  });

  it("lets a calendar-only key book, but not list appointments", async () => {
    const { agencyUuid, token } = await setupAgency();
    await openBusinessHours(token);
    const calendarOnly = await createKey(agencyUuid, { scopes: ["calendar"], expires: false });
    const [slot] = await freeStarts(calendarOnly.token, nextWeekday(5));
    const appointment = await book(calendarOnly.token, slot);
    expect(appointment.status).toBe("booked");
    const list = await api("GET", "/appointments", { token: calendarOnly.token });
    expectError(list, 403, "Token missing required scope: appointments", "insufficient_scope");
    expectError(await api("GET", `/appointments/${appointment.appointment_uuid}`, { token: calendarOnly.token }), 403, "Token missing required scope: appointments");
    expect((await api("GET", "/appointments", { token })).body.appointments.map((a: any) => a.appointment_uuid)).toEqual([appointment.appointment_uuid]);
  });

  it("requires the calendar scope", async () => {
    const { agencyUuid } = await setupAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["appointments"] });
    const res = await api("POST", "/calendar/bookings", { token, body: bookingBody("2026-12-01T14:00:00.000Z") });
    expectError(res, 403, "Token missing required scope: calendar");
  });
});

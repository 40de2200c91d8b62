import { DateTime } from "luxon";
import { expect } from "vitest";
import { todayIn } from "@/lib/zoned-time";
import { admin, api } from "./http";
import { patchSettings } from "./factories";

export const NEW_YORK = "America/New_York";
export const SLOT_TAKEN = "This time slot is no longer available.";
export const WIDGET_MEMBER_REMOVED = "This booking widget is inactive: its team member was removed from the agency";
export const MISCONFIGURED = "Calendar is misconfigured: no working hours are set for this calendar. Set them with PUT /calendar/hours.";
export const TEAM_MEMBER_ALIASES = ["agent_uuid", "agentUuid", "user_uuid", "user", "agent"] as const;

/** Every field of an appointment record (docs/decisions/resources.md), sorted for comparing with Object.keys. */
export const APPOINTMENT_KEYS = [
  "appointment_uuid",
  "contact_uuid",
  "contact_name",
  "agent_uuid",
  "start_at",
  "end_at",
  "status",
  "title",
  "notes",
  "booking_widget_uuid",
  "path_uuid",
  "created_at",
  "updated_at",
  "canceled_at",
].sort();

/** Monday to Friday, 09:00-17:00. */
export const WEEKDAYS_9_TO_5 = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: "09:00", end: "17:00" }));

const DAY_MS = 86_400_000;

/** `date` plus `days` calendar days (YYYY-MM-DD arithmetic, no zone involved). */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

export const weekdayOf = (date: string) => new Date(`${date}T00:00:00.000Z`).getUTCDay();

/** Today's date in `zone`, from the real clock. */
export const today = (zone = NEW_YORK) => todayIn(zone);

/** The first date at least `minDaysAhead` days after today (in `zone`) that falls on `weekday`. */
export function nextWeekday(weekday: number, minDaysAhead = 2, zone = NEW_YORK) {
  let date = addDays(today(zone), minDaysAhead);
  while (weekdayOf(date) !== weekday) date = addDays(date, 1);
  return date;
}

/** Counts the dates in [from, to] whose weekday is in `weekdays`. */
export function countWeekdays(from: string, to: string, weekdays: number[]) {
  let n = 0;
  for (let d = from; d <= to; d = addDays(d, 1)) if (weekdays.includes(weekdayOf(d))) n++;
  return n;
}

export async function putHours(token: string, body: Record<string, unknown>, query = "") {
  const res = await api("PUT", `/calendar/hours${query}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.hours as Record<string, any>;
}

/** The agency calendar (or a member's, with `query`) open Mon-Fri 09:00-17:00 New York time, 30-minute slots. */
export const openBusinessHours = (token: string, query = "", body: Record<string, unknown> = {}) =>
  putHours(token, { timezone: NEW_YORK, slot_minutes: 30, days: WEEKDAYS_9_TO_5, ...body }, query);

export async function availability(token: string, from: string, to: string, extra = "") {
  const res = await api("GET", `/calendar/availability?from=${from}&to=${to}${extra}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.availability as { agent_uuid: string | null; timezone: string; slot_minutes: number; dates: any[] };
}

/** The UTC start of every free slot on `date`. */
export async function freeStarts(token: string, date: string, extra = "") {
  const found = (await availability(token, date, date, extra)).dates.find((d: any) => d.date === date);
  return (found?.slots ?? []).map((s: any) => s.start_at as string);
}

let contactCounter = 0;
/** A booking body for a new contact (unique email) at `startAt`. */
export const bookingBody = (startAt: string, extra: Record<string, unknown> = {}) => ({
  start_at: startAt,
  first_name: "Ada",
  last_name: "Lovelace",
  email: `ada-${++contactCounter}-${crypto.randomUUID().slice(0, 8)}@example.com`,
  ...extra,
});

export async function book(token: string, startAt: string, extra: Record<string, unknown> = {}, query = "") {
  const res = await api("POST", `/calendar/bookings${query}`, { token, body: bookingBody(startAt, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.appointment as Record<string, any>;
}

export async function createWidget(agencyUuid: string, body: Record<string, unknown> = {}) {
  const res = await admin("POST", `/agencies/${agencyUuid}/booking-widgets`, { name: "Intro call", duration_minutes: 30, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.booking_widget as Record<string, any>;
}

export async function createLegacyCalendarToken(agencyUuid: string) {
  const res = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

/**
 * The next DST change in `zone`: the first date whose UTC offset at noon differs from the day
 * before's, with the offsets (minutes) before and after. It is at least two days ahead, so the
 * day before it is still wholly in the future.
 */
export function nextDstChange(zone = NEW_YORK) {
  const offsetAtNoon = (date: string) => DateTime.fromMillis(Date.parse(`${date}T12:00:00.000Z`), { zone }).offset;
  let date = addDays(today(zone), 2);
  for (let i = 0; i < 400; i++, date = addDays(date, 1)) {
    const before = offsetAtNoon(addDays(date, -1));
    const after = offsetAtNoon(date);
    if (before !== after) return { date, before, after };
  }
  throw new Error(`no DST change in ${zone} within 400 days`);
}

/** Sets the agency's booking settings (any subset of them) through PATCH /settings. */
export async function setBookingSettings(
  token: string,
  booking: Partial<{ default_slot_minutes: number; buffer_minutes: number; min_notice_minutes: number }>,
) {
  return (await patchSettings(token, { booking })).booking as { default_slot_minutes: number; buffer_minutes: number; min_notice_minutes: number };
}

export { setClock } from "./clock";

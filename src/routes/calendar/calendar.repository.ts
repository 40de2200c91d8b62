import { and, eq, gt, lt, ne } from "drizzle-orm";
import type { Db } from "@/db/client";
import { appointments, calendarHours, type WorkingDay } from "@/db/schema";
import { newId } from "@/lib/ids";
import { liveMemberQuery } from "@/lib/team-member";
import { nowIso } from "@/lib/time";
import { calendarKeyOf } from "@/routes/appointments/appointments.repository";
import { MAX_SLOT_MINUTES } from "./calendar.messages";
import type { Slot, WorkingHours } from "./slots";

export type CalendarHoursRow = typeof calendarHours.$inferSelect;

const sortDays = (days: WorkingDay[]) =>
  [...days].sort((a, b) => a.weekday - b.weekday || a.start.localeCompare(b.start));

export const toPublicHours = (row: CalendarHoursRow) => ({
  agent_uuid: row.memberId,
  timezone: row.timezone,
  slot_minutes: row.slotMinutes,
  days: sortDays(row.days).map((d) => ({ weekday: d.weekday, start: d.start, end: d.end })),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

export const toWorkingHours = (row: CalendarHoursRow): WorkingHours => ({
  timezone: row.timezone,
  slotMinutes: row.slotMinutes,
  days: row.days,
});

/** The hours of one calendar: one row through `calendar_hours_calendar_unique`. */
const hoursQuery = (db: Db, agencyId: string, memberId: string | null) =>
  db
    .select()
    .from(calendarHours)
    .where(and(eq(calendarHours.agencyId, agencyId), eq(calendarHours.calendarKey, calendarKeyOf(memberId))));

/** The hours of the agency calendar (`memberId` null) or of one team member's calendar. */
export const getHours = (db: Db, agencyId: string, memberId: string | null) => hoursQuery(db, agencyId, memberId).get();

/**
 * A calendar's hours in one D1 round trip, with the membership check of the team member
 * when one is named. `memberFound` is true without a member.
 */
export async function readHours(db: Db, agencyId: string, memberId: string | null) {
  if (memberId === null) return { memberFound: true, hours: await getHours(db, agencyId, null) };
  const [member, hours] = await db.batch([liveMemberQuery(db, agencyId, memberId), hoursQuery(db, agencyId, memberId)]);
  return { memberFound: member.length > 0, hours: hours[0] };
}

/**
 * Every appointment is one slot of its calendar, and a slot is at most MAX_SLOT_MINUTES long:
 * an appointment that ends after `from` started less than this before it.
 */
const LONGEST_APPOINTMENT_MS = MAX_SLOT_MINUTES * 60_000;

// Stored instants are ISO strings compared as text: keep bounds inside the 4-digit years.
const FIRST_INSTANT = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");
const isoWithin = (ms: number) => new Date(Math.min(Math.max(ms, FIRST_INSTANT), LAST_INSTANT)).toISOString();

/**
 * Live appointments of one calendar that may overlap `window`. Both ends bound `start_at`, so
 * the partial unique index `appointments_live_slot_unique` (agency, calendar, start) over
 * live appointments is read only from `window.start` minus the longest appointment to
 * `window.end`: canceled appointments, other calendars and the rest of the calendar's past and
 * future are never read. (`status <> ?` bound to 'canceled' is what lets SQLite use the partial index.)
 */
const busyQuery = (db: Db, agencyId: string, calendarKey: string, window: Slot) =>
  db
    .select({ startAt: appointments.startAt, endAt: appointments.endAt })
    .from(appointments)
    .where(
      and(
        eq(appointments.agencyId, agencyId),
        eq(appointments.calendarKey, calendarKey),
        ne(appointments.status, "canceled"),
        gt(appointments.startAt, isoWithin(window.start - LONGEST_APPOINTMENT_MS)),
        lt(appointments.startAt, isoWithin(window.end)),
        gt(appointments.endAt, isoWithin(window.start)),
      ),
    );

/**
 * What availability needs, in one D1 round trip (one batch): the membership check of the
 * team member when one is named, the calendar's hours, and the live appointments of the
 * calendar that may overlap `window` (which must cover the calendar's range whatever its
 * timezone, since the hours are read in the same batch). `memberFound` is true without a member.
 */
export async function readAvailability(db: Db, agencyId: string, memberId: string | null, window: Slot) {
  const hours = hoursQuery(db, agencyId, memberId);
  const busy = busyQuery(db, agencyId, calendarKeyOf(memberId), window);
  if (memberId === null) {
    const [hoursRows, busyRows] = await db.batch([hours, busy]);
    return { memberFound: true, hours: hoursRows[0], busy: busyRows };
  }
  const [member, hoursRows, busyRows] = await db.batch([liveMemberQuery(db, agencyId, memberId), hours, busy]);
  return { memberFound: member.length > 0, hours: hoursRows[0], busy: busyRows };
}

/** Replaces a calendar's hours in one statement (upsert on the one-set-per-calendar index). */
export async function setHours(
  db: Db,
  agencyId: string,
  memberId: string | null,
  input: { timezone: string; slotMinutes: number; days: WorkingDay[] },
) {
  const now = nowIso();
  const days = sortDays(input.days);
  const row = await db
    .insert(calendarHours)
    .values({
      id: newId(),
      agencyId,
      memberId,
      calendarKey: calendarKeyOf(memberId),
      timezone: input.timezone,
      slotMinutes: input.slotMinutes,
      days,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [calendarHours.agencyId, calendarHours.calendarKey],
      set: { timezone: input.timezone, slotMinutes: input.slotMinutes, days, updatedAt: now },
    })
    .returning()
    .get();
  return row;
}

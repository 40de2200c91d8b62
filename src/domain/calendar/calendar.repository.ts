import { and, eq, gt, lt, ne } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { appointments, calendarHours, type WorkingDay } from "@/db/schema";
import { newId } from "@/lib/ids";
import { liveMemberQuery } from "@/domain/users/team-member";
import { isoWithin, nowIso } from "@/lib/time";
import { calendarKeyOf } from "./appointments.repository";
import { agencySettingsQuery, effectiveSettings, type AgencySettings } from "@/domain/settings/settings.repository";
import { limits } from "@/domain/settings/settings.model";
import { LONGEST_APPOINTMENT_MS } from "./calendar.messages";
import type { Slot, WorkingHours } from "./slots";
import { commit } from "@/db/outbox";

export type CalendarHoursRow = typeof calendarHours.$inferSelect;

const sortDays = (days: WorkingDay[]) =>
  [...days].sort((a, b) => a.weekday - b.weekday || a.start.localeCompare(b.start));

/** The slot length in force: the calendar's own, else (stored null) the agency's `booking.default_slot_minutes`. */
const slotMinutesOf = (row: CalendarHoursRow, settings: AgencySettings) => row.slotMinutes ?? settings.booking.default_slot_minutes;

export const toPublicHours = (row: CalendarHoursRow, settings: AgencySettings) => ({
  agent_uuid: row.memberId,
  timezone: row.timezone,
  slot_minutes: slotMinutesOf(row, settings),
  slot_minutes_source: row.slotMinutes === null ? ("settings" as const) : ("calendar" as const),
  days: sortDays(row.days).map((d) => ({ weekday: d.weekday, start: d.start, end: d.end })),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

export const toWorkingHours = (row: CalendarHoursRow, settings: AgencySettings): WorkingHours => ({
  timezone: row.timezone,
  slotMinutes: slotMinutesOf(row, settings),
  days: row.days,
});

/** The hours of one calendar: one row through `calendar_hours_calendar_unique`. */
const hoursQuery = (db: Db, agencyId: string, memberId: string | null) =>
  db
    .select()
    .from(calendarHours)
    .where(and(eq(calendarHours.agencyId, agencyId), eq(calendarHours.calendarKey, calendarKeyOf(memberId))));

/**
 * `queries` as one D1 batch (one round trip), after the membership check of the team member
 * when one is named: `memberFound` is true without one.
 */
async function batchCheckingMember<T extends [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>(
  db: Db,
  agencyId: string,
  memberId: string | null,
  queries: T,
): Promise<{ memberFound: boolean; results: BatchResponse<T> }> {
  if (memberId === null) return { memberFound: true, results: await commit(db, queries) };
  const [member, ...results] = await commit(db, [liveMemberQuery(db, agencyId, memberId), ...queries]);
  return { memberFound: member.length > 0, results: results as BatchResponse<T> };
}

/**
 * What setting a calendar's hours needs, in one D1 round trip: the membership check of the
 * team member when one is named, and the agency's settings in force (its timezone and
 * default slot length).
 */
export async function readHoursSetup(db: Db, agencyId: string, memberId: string | null) {
  const { memberFound, results } = await batchCheckingMember(db, agencyId, memberId, [agencySettingsQuery(db, agencyId)]);
  return { memberFound, settings: effectiveSettings(results[0][0]) };
}

/**
 * A calendar's hours with the agency's settings in force, in one D1 round trip, with the
 * membership check of the team member when one is named (`memberFound` is true without one).
 * `checkMember: false` reads a calendar whose member may since have been removed (an existing
 * appointment's).
 */
export async function readHours(db: Db, agencyId: string, memberId: string | null, { checkMember = true } = {}) {
  const { memberFound, results } = await batchCheckingMember(db, agencyId, checkMember ? memberId : null, [
    hoursQuery(db, agencyId, memberId),
    agencySettingsQuery(db, agencyId),
  ]);
  return { memberFound, hours: results[0][0], settings: effectiveSettings(results[1][0]) };
}

/**
 * The longest buffer `booking.buffer_minutes` accepts. Availability reads appointments in the
 * same batch as the settings, before the agency's buffer is known, so it reads this much
 * around the range: an appointment just outside it can still block a slot inside.
 */
const LONGEST_BUFFER_MS = limits.bufferMinutes.max * 60_000;

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
 * team member when one is named, the calendar's hours, the agency's settings in force, and
 * the live appointments of the calendar that may overlap `window` widened by the longest
 * buffer (`window` must cover the calendar's range whatever its timezone, since the hours are
 * read in the same batch). `memberFound` is true without a member.
 */
export async function readAvailability(db: Db, agencyId: string, memberId: string | null, window: Slot) {
  const reach = { start: window.start - LONGEST_BUFFER_MS, end: window.end + LONGEST_BUFFER_MS };
  const { memberFound, results } = await batchCheckingMember(db, agencyId, memberId, [
    hoursQuery(db, agencyId, memberId),
    agencySettingsQuery(db, agencyId),
    busyQuery(db, agencyId, calendarKeyOf(memberId), reach),
  ]);
  const [hours, settings, busy] = results;
  return { memberFound, hours: hours[0], settings: effectiveSettings(settings[0]), busy };
}

/** Replaces a calendar's hours in one statement (upsert on the one-set-per-calendar index). */
export async function setHours(
  db: Db,
  agencyId: string,
  memberId: string | null,
  input: { timezone: string; slotMinutes: number | null; days: WorkingDay[] },
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

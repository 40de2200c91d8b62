import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { calendarHours, contacts, type WorkingDay } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { calendarKeyOf } from "@/routes/appointments/appointments.repository";
import type { WorkingHours } from "./slots";

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

/** The hours of the agency calendar (`memberId` null) or of one team member's calendar. */
export const getHours = (db: Db, agencyId: string, memberId: string | null) =>
  db
    .select()
    .from(calendarHours)
    .where(and(eq(calendarHours.agencyId, agencyId), eq(calendarHours.calendarKey, calendarKeyOf(memberId))))
    .get();

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

/**
 * The live contact a booking should reuse: the one with this email, else the one with this
 * phone (both are unique among live contacts).
 */
export async function findLiveContact(db: Db, agencyId: string, by: { email?: string | null; phone?: string | null }) {
  const live = and(eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt));
  if (by.email) {
    const found = await db.select().from(contacts).where(and(live, eq(contacts.email, by.email))).get();
    if (found) return found;
  }
  if (by.phone) {
    const found = await db.select().from(contacts).where(and(live, eq(contacts.phone, by.phone))).get();
    if (found) return found;
  }
  return undefined;
}

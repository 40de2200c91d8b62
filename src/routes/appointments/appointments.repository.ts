import { and, asc, count, eq, gt, gte, lt, ne, notExists, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { agencyTimezone, agencyTimezoneQuery, timezoneOf } from "@/db/agency-timezone";
import type { Db } from "@/db/client";
import { appointments, contacts, type AppointmentStatus } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { conflict } from "@/lib/errors";
import { offsetOf, type Pagination } from "@/lib/pagination";
import { liveMemberQuery } from "@/lib/team-member";
import { nowIso } from "@/lib/time";
import { calendarMessages } from "@/routes/calendar/calendar.messages";

export type AppointmentRow = typeof appointments.$inferSelect;
export interface AppointmentRecord {
  appointment: AppointmentRow;
  firstName: string | null;
  lastName: string | null;
}

/** The calendar an appointment belongs to: a team member's id, or `agency`. */
export const AGENCY_CALENDAR = "agency";
export const calendarKeyOf = (memberId: string | null) => memberId ?? AGENCY_CALENDAR;

export const toPublicAppointment = ({ appointment: a, firstName, lastName }: AppointmentRecord) => ({
  appointment_uuid: a.id,
  contact_uuid: a.contactId,
  contact_name: firstName === null ? null : `${firstName} ${lastName ?? ""}`.trim(),
  agent_uuid: a.memberId,
  start_at: a.startAt,
  end_at: a.endAt,
  status: a.status,
  title: a.title,
  notes: a.notes,
  booking_widget_uuid: a.bookingWidgetId,
  path_uuid: a.pathId,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
  canceled_at: a.canceledAt,
});

const ofAgency = (agencyId: string, appointmentId: string) =>
  and(eq(appointments.id, appointmentId.toLowerCase()), eq(appointments.agencyId, agencyId));

const withContact = (db: Db) =>
  db
    .select({ appointment: appointments, firstName: contacts.firstName, lastName: contacts.lastName })
    .from(appointments)
    .leftJoin(contacts, and(eq(contacts.id, appointments.contactId), eq(contacts.agencyId, appointments.agencyId)));

export const getAppointment = (db: Db, agencyId: string, appointmentId: string): Promise<AppointmentRecord | undefined> =>
  withContact(db).where(ofAgency(agencyId, appointmentId)).get();

export interface AppointmentFilters {
  /** [startAt, endAt) in UTC, from the agency-local `from`/`to` dates. */
  startsFrom?: string;
  startsBefore?: string;
  status?: AppointmentStatus;
  memberId?: string;
  contactId?: string;
}

export async function listAppointments(db: Db, agencyId: string, filters: AppointmentFilters, page: Pagination) {
  const where = and(
    eq(appointments.agencyId, agencyId),
    filters.startsFrom !== undefined ? gte(appointments.startAt, filters.startsFrom) : undefined,
    filters.startsBefore !== undefined ? lt(appointments.startAt, filters.startsBefore) : undefined,
    filters.status !== undefined ? eq(appointments.status, filters.status) : undefined,
    filters.memberId !== undefined ? eq(appointments.memberId, filters.memberId) : undefined,
    filters.contactId !== undefined ? eq(appointments.contactId, filters.contactId.toLowerCase()) : undefined,
  );
  const [rows, totals] = await db.batch([
    withContact(db)
      .where(where)
      // Agenda order; rowid keeps appointments created in the same millisecond stable.
      .orderBy(asc(appointments.startAt), asc(appointments.createdAt), asc(sql`${appointments}.rowid`))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ total: count() }).from(appointments).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

/**
 * What the list needs before its rows, in at most one D1 round trip: the membership check
 * of the team member when one is named (`memberFound` is true without one), and the agency's
 * timezone when the list is limited to agency-local dates (`timezone` is null otherwise).
 */
export async function readListSetup(db: Db, agencyId: string, memberId: string | null, needsTimezone: boolean) {
  if (memberId === null) return { memberFound: true, timezone: needsTimezone ? await agencyTimezone(db, agencyId) : null };
  if (!needsTimezone) return { memberFound: (await liveMemberQuery(db, agencyId, memberId)).length > 0, timezone: null };
  const [member, agency] = await db.batch([liveMemberQuery(db, agencyId, memberId), agencyTimezoneQuery(db, agencyId)]);
  return { memberFound: member.length > 0, timezone: timezoneOf(agency) };
}

/**
 * A live appointment of the same calendar that overlaps [start, end) but starts at another
 * time. Slots of one calendar only overlap like that after its `slot_minutes` changed; the
 * same start is left to the unique index, which is what settles races for one slot.
 */
const busyOverlapSql = (agencyId: string, calendarKey: string, start: string, end: string, exceptId: string | null): SQL => sql`
  SELECT 1 FROM appointments AS busy
  WHERE busy.agency_id = ${agencyId} AND busy.calendar_key = ${calendarKey} AND busy.status <> 'canceled'
    AND busy.start_at <> ${start} AND busy.start_at < ${end} AND busy.end_at > ${start}
    ${exceptId === null ? sql`` : sql`AND busy.id <> ${exceptId}`}`;

export type NewAppointment = Omit<AppointmentRow, "agencyId" | "status" | "createdAt" | "updatedAt" | "canceledAt">;

/**
 * Books a slot. One INSERT: of two bookings of the same slot the partial unique index
 * `appointments_live_slot_unique` (agency, calendar, start, over live appointments) lets
 * exactly one through, and the loser is the SPEC 409. The NOT EXISTS in the same statement
 * refuses a slot that overlaps a live appointment of another length (see busyOverlapSql).
 */
export async function insertAppointment(db: Db, agencyId: string, input: NewAppointment): Promise<AppointmentRow> {
  const now = nowIso();
  const row: AppointmentRow = { ...input, agencyId, status: "booked", createdAt: now, updatedAt: now, canceledAt: null };
  // Values in the table's column order (drizzle lists every column for INSERT ... SELECT).
  const values = sql.join(
    [
      row.id, row.agencyId, row.contactId, row.memberId, row.calendarKey, row.startAt, row.endAt, row.status,
      row.title, row.notes, row.bookingWidgetId, row.pathId, row.createdAt, row.updatedAt, row.canceledAt,
    ].map((value) => sql`${value}`),
    sql`, `,
  );
  let inserted: { id: string }[];
  try {
    inserted = await db
      .insert(appointments)
      .select(sql`SELECT ${values} WHERE NOT EXISTS (${busyOverlapSql(agencyId, row.calendarKey, row.startAt, row.endAt, null)})`)
      .returning({ id: appointments.id });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(calendarMessages.slotUnavailable);
    throw error;
  }
  if (inserted.length === 0) throw conflict(calendarMessages.slotUnavailable);
  return row;
}

export interface AppointmentPatch {
  startAt?: string;
  endAt?: string;
  notes?: string | null;
  title?: string | null;
  status?: "completed" | "no_show";
}

/**
 * Applies a patch only while the appointment still has the status it was validated against
 * (a concurrent cancel wins cleanly). A new start goes through the same unique index as a
 * booking, so a reschedule onto a taken slot is the SPEC 409. Returns undefined when the
 * status changed or the new time overlaps another appointment.
 */
export async function updateAppointment(
  db: Db,
  agencyId: string,
  current: AppointmentRow,
  patch: AppointmentPatch,
): Promise<AppointmentRow | undefined> {
  const busy = alias(appointments, "busy");
  const moving = patch.startAt !== undefined && patch.endAt !== undefined;
  const where = and(
    ofAgency(agencyId, current.id),
    eq(appointments.status, current.status),
    moving
      ? notExists(
          db
            .select({ one: sql`1` })
            .from(busy)
            .where(
              and(
                eq(busy.agencyId, agencyId),
                eq(busy.calendarKey, current.calendarKey),
                ne(busy.status, "canceled"),
                ne(busy.id, current.id),
                ne(busy.startAt, patch.startAt!),
                lt(busy.startAt, patch.endAt!),
                gt(busy.endAt, patch.startAt!),
              ),
            ),
        )
      : undefined,
  );
  try {
    return await db
      .update(appointments)
      .set({ ...patch, updatedAt: nowIso() })
      .where(where)
      .returning()
      .get();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(calendarMessages.slotUnavailable);
    throw error;
  }
}

/** Cancels a booked appointment; undefined when it is not (any more) booked. */
export function cancelAppointment(db: Db, agencyId: string, appointmentId: string) {
  const now = nowIso();
  return db
    .update(appointments)
    .set({ status: "canceled", canceledAt: now, updatedAt: now })
    .where(and(ofAgency(agencyId, appointmentId), eq(appointments.status, "booked")))
    .returning()
    .get();
}

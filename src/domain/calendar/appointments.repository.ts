import { and, count, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { agencyTimezone, agencyTimezoneQuery, timezoneOf } from "@/db/agency-timezone";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { appointments, contacts, type AppointmentStatus } from "@/db/schema";
import { withBuffer, type BookingRules } from "@/lib/booking-rules";
import { isUniqueViolation } from "@/lib/db-errors";
import { conflict } from "@/lib/errors";
import { eventStatement, type EventType } from "@/domain/events/events";
import { liveMemberQuery } from "@/domain/users/team-member";
import { isoWithin, nowIso } from "@/lib/time";
import { calendarMessages, LONGEST_APPOINTMENT_MS } from "./calendar.messages";
import { commit } from "@/db/outbox";

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

/** A column of the appointment's contact, as a scalar subquery on the appointment row. */
const ofContact = (column: typeof contacts.firstName | typeof contacts.lastName) =>
  sql`(SELECT ${column} FROM ${contacts} WHERE ${contacts.id} = ${appointments.contactId} AND ${contacts.agencyId} = ${appointments.agencyId})`;

/**
 * The event of a change to one appointment, for the change's batch (see eventStatement), with
 * its contact's name as the public record shows it.
 */
const appointmentEvent = (db: Db, agencyId: string, appointmentId: string, type: EventType) =>
  eventStatement(db, {
    agencyId,
    type,
    objectType: "appointment",
    table: appointments,
    where: ofAgency(agencyId, appointmentId),
    extra: { contactFirstName: ofContact(contacts.firstName), contactLastName: ofContact(contacts.lastName) },
    // Every appointment write is conditional (a free slot, the status it was validated against).
    ifChanged: true,
  });

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

/** Agenda order: by start, then as booked, the id on ties. */
export const appointmentOrder = listOrder("asc", { startAt: appointments.startAt, createdAt: appointments.createdAt, id: appointments.id });
export const appointmentKeys = (record: AppointmentRecord) => appointmentOrder.keysOf(record.appointment);

export function listAppointments(db: Db, agencyId: string, filters: AppointmentFilters, page: PageWindow) {
  const where = and(
    eq(appointments.agencyId, agencyId),
    filters.startsFrom !== undefined ? gte(appointments.startAt, filters.startsFrom) : undefined,
    filters.startsBefore !== undefined ? lt(appointments.startAt, filters.startsBefore) : undefined,
    filters.status !== undefined ? eq(appointments.status, filters.status) : undefined,
    filters.memberId !== undefined ? eq(appointments.memberId, filters.memberId) : undefined,
    filters.contactId !== undefined ? eq(appointments.contactId, filters.contactId.toLowerCase()) : undefined,
  );
  return readListPage(
    db,
    page,
    withContact(db).where(appointmentOrder.where(page, where)).orderBy(...appointmentOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(appointments).where(where),
  );
}

/**
 * What the list needs before its rows, in at most one D1 round trip: the membership check
 * of the team member when one is named (`memberFound` is true without one), and the agency's
 * timezone when the list is limited to agency-local dates (`timezone` is null otherwise).
 */
export async function readListSetup(db: Db, agencyId: string, memberId: string | null, needsTimezone: boolean) {
  if (memberId === null) return { memberFound: true, timezone: needsTimezone ? await agencyTimezone(db, agencyId) : null };
  if (!needsTimezone) return { memberFound: (await liveMemberQuery(db, agencyId, memberId)).length > 0, timezone: null };
  const [member, agency] = await commit(db, [liveMemberQuery(db, agencyId, memberId), agencyTimezoneQuery(db, agencyId)]);
  return { memberFound: member.length > 0, timezone: timezoneOf(agency) };
}

/**
 * A live appointment of the same calendar, other than `exceptId`, that the slot [start, end)
 * may not be placed next to: one that overlaps the slot widened by the buffer on both sides
 * (booking.buffer_minutes; see withBuffer). The same start is left to the unique index, which
 * is what settles races for one slot; overlaps at other starts come from the buffer or from a
 * calendar whose slot length changed. Run inside the write's own statement, so that of two
 * concurrent writes the second sees the first (D1 runs statements one at a time).
 */
function busyOverlapSql(
  agencyId: string,
  calendarKey: string,
  slot: { startAt: string; endAt: string },
  rules: BookingRules,
  exceptId: string | null,
): SQL {
  const reach = withBuffer(rules, { start: Date.parse(slot.startAt), end: Date.parse(slot.endAt) });
  return sql`
  SELECT 1 FROM appointments AS busy
  WHERE busy.agency_id = ${agencyId} AND busy.calendar_key = ${calendarKey} AND busy.status <> 'canceled'
    AND busy.start_at <> ${slot.startAt} AND busy.start_at < ${isoWithin(reach.end)} AND busy.end_at > ${isoWithin(reach.start)}
    AND busy.start_at > ${isoWithin(reach.start - LONGEST_APPOINTMENT_MS)}
    ${exceptId === null ? sql`` : sql`AND busy.id <> ${exceptId}`}`;
}

export type NewAppointment = Omit<AppointmentRow, "agencyId" | "status" | "createdAt" | "updatedAt" | "canceledAt">;

/**
 * Books a slot. One INSERT: of two bookings of the same slot the partial unique index
 * `appointments_live_slot_unique` (agency, calendar, start, over live appointments) lets
 * exactly one through, and the loser is the specification's 409 (docs/decisions/resources.md).
 * The NOT EXISTS in the same statement refuses a slot within the buffer of, or overlapping,
 * another live appointment (see busyOverlapSql): of two bookings of adjacent slots that the
 * buffer keeps apart, one wins.
 */
export async function insertAppointment(db: Db, agencyId: string, input: NewAppointment, rules: BookingRules): Promise<AppointmentRow> {
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
    [inserted] = await commit(db, [
      db
        .insert(appointments)
        .select(sql`SELECT ${values} WHERE NOT EXISTS (${busyOverlapSql(agencyId, row.calendarKey, row, rules, null)})`)
        .returning({ id: appointments.id }),
      appointmentEvent(db, agencyId, row.id, "appointment.booked"),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(calendarMessages.slotUnavailable);
    throw error;
  }
  if (inserted.length === 0) throw conflict(calendarMessages.slotUnavailable);
  return row;
}

export interface AppointmentPatch {
  notes?: string | null;
  title?: string | null;
  status?: "completed" | "no_show";
  /** A new slot, placed under the agency's booking rules (its buffer). */
  reschedule?: { startAt: string; endAt: string; rules: BookingRules };
}

/**
 * Applies a patch only while the appointment still has the status it was validated against
 * (a concurrent cancel wins cleanly). A new slot goes through the same unique index and the
 * same buffer check as a booking, in the UPDATE itself, so a reschedule onto a taken slot or
 * next to another appointment is the specification's 409; the appointment's own old time does
 * not count. Returns undefined when the status changed or the new slot is not free.
 */
export async function updateAppointment(
  db: Db,
  agencyId: string,
  current: AppointmentRow,
  patch: AppointmentPatch,
): Promise<AppointmentRow | undefined> {
  const { reschedule, ...fields } = patch;
  const where = and(
    ofAgency(agencyId, current.id),
    eq(appointments.status, current.status),
    reschedule ? sql`NOT EXISTS (${busyOverlapSql(agencyId, current.calendarKey, reschedule, reschedule.rules, current.id)})` : undefined,
  );
  const slot = reschedule ? { startAt: reschedule.startAt, endAt: reschedule.endAt } : {};
  try {
    return await writeWithEvent(
      db,
      db
        .update(appointments)
        .set({ ...fields, ...slot, updatedAt: nowIso() })
        .where(where)
        .returning(),
      appointmentEvent(db, agencyId, current.id, "appointment.updated"),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(calendarMessages.slotUnavailable);
    throw error;
  }
}

/** Cancels a booked appointment; undefined when it is not (any more) booked. */
export function cancelAppointment(db: Db, agencyId: string, appointmentId: string) {
  const now = nowIso();
  return writeWithEvent(
    db,
    db
      .update(appointments)
      .set({ status: "canceled", canceledAt: now, updatedAt: now })
      .where(and(ofAgency(agencyId, appointmentId), eq(appointments.status, "booked")))
      .returning(),
    appointmentEvent(db, agencyId, appointmentId, "appointment.canceled"),
  );
}

import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export interface WorkingDay {
  /** 0 = Sunday ... 6 = Saturday. */
  weekday: number;
  /** HH:MM, local to the calendar's timezone. */
  start: string;
  end: string;
}

/**
 * Working hours of a calendar: the agency's own (`member_id` null) or one team member's.
 * `calendar_key` is the member id, or `agency` for the agency calendar, so that one index
 * can say "one set of hours per calendar".
 */
export const calendarHours = sqliteTable(
  "calendar_hours",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    memberId: text("member_id"),
    calendarKey: text("calendar_key").notNull(),
    timezone: text("timezone").notNull(),
    /** Null: the calendar follows the agency's `booking.default_slot_minutes`. */
    slotMinutes: integer("slot_minutes"),
    days: text("days", { mode: "json" }).$type<WorkingDay[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("calendar_hours_calendar_unique").on(t.agencyId, t.calendarKey)],
);

export const appointmentStatuses = ["booked", "canceled", "completed", "no_show"] as const;
export type AppointmentStatus = (typeof appointmentStatuses)[number];

/**
 * Appointments. A slot is taken by any appointment that is not canceled; the partial
 * unique index over (agency, calendar, start) makes "two partners book one slot" a
 * database decision: exactly one INSERT succeeds.
 */
export const appointments = sqliteTable(
  "appointments",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    contactId: text("contact_id").notNull(),
    memberId: text("member_id"),
    calendarKey: text("calendar_key").notNull(),
    startAt: timestamp("start_at").notNull(),
    endAt: timestamp("end_at").notNull(),
    status: text("status", { enum: appointmentStatuses }).notNull(),
    title: text("title"),
    notes: text("notes"),
    bookingWidgetId: text("booking_widget_id"),
    pathId: text("path_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    canceledAt: timestamp("canceled_at"),
  },
  (t) => [
    uniqueIndex("appointments_live_slot_unique")
      .on(t.agencyId, t.calendarKey, t.startAt)
      .where(sql.raw("status <> 'canceled'")),
    index("appointments_agency_start_idx").on(t.agencyId, t.startAt, t.createdAt, t.id),
    index("appointments_agency_created_idx").on(t.agencyId, t.createdAt),
    index("appointments_agency_contact_idx").on(t.agencyId, t.contactId, t.startAt, t.createdAt, t.id),
    index("appointments_agency_member_idx").on(t.agencyId, t.memberId, t.startAt, t.createdAt, t.id),
  ],
);

export const bookingWidgets = sqliteTable(
  "booking_widgets",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    memberId: text("member_id"),
    durationMinutes: integer("duration_minutes").notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("booking_widgets_agency_idx").on(t.agencyId, t.createdAt, t.id)],
);

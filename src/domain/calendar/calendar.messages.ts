import { MAX_SLOT_MINUTES } from "@/domain/settings/settings.model";

/** Messages shared by the calendar, bookings and appointments routes (the specification's where it gives one: docs/decisions/resources.md). */
export const calendarMessages = {
  /** The specification's: a slot outside the hours, in the past or taken, or one the booking settings rule out. */
  slotUnavailable: "This time slot is no longer available.",
  /** The specification's 400 misconfigured calendar. */
  misconfigured: "Calendar is misconfigured: no working hours are set for this calendar. Set them with PUT /calendar/hours.",
  hoursNotSet: "No working hours are set for this calendar",
  timezone: "timezone must be an IANA time zone name, e.g. America/New_York",
  slotMinutes: "slot_minutes must be a whole number from 5 to 240, in steps of 5",
  days: "days must be an array of { weekday, start, end } ranges",
  daysTooMany: "days may contain at most 50 ranges",
  weekday: "must be an integer from 0 (Sunday) to 6 (Saturday)",
  start: "must be a time of day HH:MM, from 00:00 to 23:59",
  end: "must be a time of day HH:MM, from 00:01 to 24:00",
  startBeforeEnd: (i: number) => `days.${i}.end must be after days.${i}.start`,
  shorterThanSlot: (i: number, slot: number) => `days.${i} is shorter than one slot (${slot} minutes)`,
  overlap: (j: number, i: number, day: string, a: string, b: string) => `days.${j} (${day} ${a}) overlaps days.${i} (${day} ${b})`,
  startAt: "start_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T14:00:00.000Z",
  namesRequired: "first_name and last_name are required",
  contactMethodRequired: "phone or email is required",
  contactNotFound: "Contact not found",
  unknownWidget: "Unknown booking_widget_uuid",
  inactiveWidget: "This booking widget is inactive",
  widgetMemberRemoved: "This booking widget is inactive: its team member was removed from the agency",
  widgetOtherMember: "booking_widget_uuid books another team member's calendar; name that team member or none",
  widgetDuration: (duration: number, slot: number) =>
    `The booking widget's duration_minutes (${duration}) does not match the calendar's slot_minutes (${slot})`,
} as const;

/**
 * OpenAPI text shared by availability, bookings and reschedules: the booking settings they all
 * obey (src/lib/booking-rules.ts).
 */
export const bookingRulesText =
  "The agency's booking settings (`GET /settings`) apply, as they are at the time of the request: a slot starts " +
  "at least `booking.min_notice_minutes` from now (and never at or before now), and neither starts nor ends within " +
  "`booking.buffer_minutes` of another booked, completed or no-show appointment of the same calendar (a slot " +
  "[s, e) is ruled out by an appointment [a, b) when a - buffer < e and b + buffer > s).";

export const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/**
 * Every appointment is one slot of its calendar, so none is longer than this: one that ends
 * after an instant started less than this before it. Overlap checks use it as the lower bound
 * of their index range on `start_at`, so they read a few entries, not the calendar's history.
 */
export const LONGEST_APPOINTMENT_MS = MAX_SLOT_MINUTES * 60_000;
export const MAX_DAY_RANGES = 50;

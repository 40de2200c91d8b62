import { z } from "@hono/zod-openapi";
import { boundedInt, dateString, instantString, integerFormat, MAX_TIMEZONE_LENGTH, uuidString } from "@/lib/bounded";
import { dateRangeQuery, MAX_RANGE_DAYS } from "@/lib/date-range";
import { uuidField } from "@/lib/ids";
import { phoneField } from "@/lib/phone";
import { isIanaTimezone } from "@/lib/time";
import { notesField, startAtField, titleField } from "@/routes/appointments/appointments.schemas";
import { MAX_EMAIL_LENGTH } from "@/domain/contacts/contacts.rules";
import { calendarMessages, MAX_DAY_RANGES, WEEKDAY_NAMES } from "@/domain/calendar/calendar.messages";
import { MAX_SLOT_MINUTES, MIN_SLOT_MINUTES } from "@/domain/settings/settings.model";
import { minutesOfDay, TIME_OF_DAY_LENGTH } from "@/lib/local-dates";
import { LOCAL_ISO_LENGTH } from "@/domain/calendar/slots";
import { teamMemberBodyShape, teamMemberQueryShape } from "@/routes/team-member.schemas";

const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const END_TIME_OF_DAY = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

const weekdayDescription = "Day of the week: 0 = Sunday, 1 = Monday, ... 6 = Saturday.";

const SUNDAY = 0;
const SATURDAY = 6;
const weekday = () => boundedInt(SUNDAY, SATURDAY);
const slotMinutes = () => boundedInt(MIN_SLOT_MINUTES, MAX_SLOT_MINUTES);

/** Documents the length the regexes above enforce: `HH:MM`. */
const timeOfDay = { minLength: TIME_OF_DAY_LENGTH, maxLength: TIME_OF_DAY_LENGTH };

/**
 * The most slots one date can have: slots of a date lie within that local day and never
 * overlap, and the longest local day in the tz database lasts 26 hours (Antarctica/Troll falls
 * back two hours).
 */
const LONGEST_LOCAL_DAY_MINUTES = 26 * 60;
export const MAX_SLOTS_PER_DATE = LONGEST_LOCAL_DAY_MINUTES / MIN_SLOT_MINUTES;

export const WorkingRange = z
  .strictObject({
    weekday: z
      .number({ error: calendarMessages.weekday })
      .int({ error: calendarMessages.weekday })
      .min(SUNDAY, { error: calendarMessages.weekday })
      .max(SATURDAY, { error: calendarMessages.weekday })
      .openapi({ description: weekdayDescription, format: integerFormat(SUNDAY, SATURDAY), example: 1 }),
    start: z
      .string({ error: calendarMessages.start })
      .regex(TIME_OF_DAY, { error: calendarMessages.start })
      .openapi({ ...timeOfDay, description: "Start of the range, HH:MM wall-clock time in the calendar's timezone.", example: "09:00" }),
    end: z
      .string({ error: calendarMessages.end })
      .regex(END_TIME_OF_DAY, { error: calendarMessages.end })
      .openapi({ ...timeOfDay, description: "End of the range, HH:MM, after `start`; `24:00` is the end of the day.", example: "17:00" }),
  })
  .openapi("WorkingRange", { example: { weekday: 1, start: "09:00", end: "17:00" } });

const hoursExample = {
  agent_uuid: null,
  timezone: "America/New_York",
  slot_minutes: 30,
  slot_minutes_source: "calendar" as const,
  days: [
    { weekday: 1, start: "09:00", end: "12:00" },
    { weekday: 1, start: "13:00", end: "17:00" },
    { weekday: 2, start: "09:00", end: "17:00" },
    { weekday: 3, start: "09:00", end: "17:00" },
    { weekday: 4, start: "09:00", end: "17:00" },
    { weekday: 5, start: "09:00", end: "15:00" },
  ],
  created_at: "2026-11-20T10:00:00.000Z",
  updated_at: "2026-11-21T09:30:00.000Z",
};

export const CalendarHours = z
  .object({
    agent_uuid: uuidString().nullable().openapi({ description: "The team member whose calendar this is; null for the agency calendar." }),
    timezone: z.string().max(MAX_TIMEZONE_LENGTH).openapi({ description: "IANA timezone the ranges are wall-clock times in." }),
    slot_minutes: slotMinutes().openapi({
      description:
        "Length of one bookable slot, and of every appointment booked into it: the calendar's own, or the agency's " +
        "`booking.default_slot_minutes` (`GET /settings`) when the calendar sets none.",
    }),
    slot_minutes_source: z.enum(["calendar", "settings"]).openapi({
      description:
        "Where `slot_minutes` comes from: `calendar`, set with these hours; `settings`, the agency's " +
        "`booking.default_slot_minutes`, followed as it changes.",
    }),
    days: z.array(WorkingRange).max(MAX_DAY_RANGES).openapi({ description: "Working ranges, sorted by weekday and start." }),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("CalendarHours", { example: hoursExample });

export const CalendarHoursResponse = z
  .object({ success: z.literal(true), hours: CalendarHours })
  .openapi("CalendarHoursResponse", { example: { success: true, hours: hoursExample } });

export const CalendarQuery = z.object(teamMemberQueryShape);

type RangeInput = { weekday: number; start: string; end: string };

const lengthOf = (range: RangeInput) => minutesOfDay(range.end) - minutesOfDay(range.start);

/**
 * The ranges shorter than one slot of `slotMinutes`, as validation details: for hours that set
 * no `slot_minutes`, checked against the agency's default once it is read.
 */
export const rangesShorterThanSlot = (days: RangeInput[], slotMinutes: number) =>
  days.flatMap((range, i) => (lengthOf(range) < slotMinutes ? [{ field: `days.${i}`, message: calendarMessages.shorterThanSlot(i, slotMinutes) }] : []));

/**
 * Rules across the ranges: start before end, no overlap on one weekday, and at least one slot
 * long when the body sets the slot length (else see `rangesShorterThanSlot`).
 */
function checkRanges(input: RangeInput[], slotMinutes: number | undefined, ctx: z.RefinementCtx) {
  // Ranges with a malformed time already have their own issue; compare only the well-formed ones.
  const wellFormed = (r: RangeInput) => TIME_OF_DAY.test(r.start) && END_TIME_OF_DAY.test(r.end);
  const days = input.map((range) => (wellFormed(range) ? range : null));
  days.forEach((range, i) => {
    if (!range) return;
    const start = minutesOfDay(range.start);
    const end = minutesOfDay(range.end);
    if (start >= end) {
      ctx.addIssue({ code: "custom", path: ["days", i, "end"], message: calendarMessages.startBeforeEnd(i) });
    } else if (slotMinutes !== undefined && end - start < slotMinutes) {
      ctx.addIssue({ code: "custom", path: ["days", i], message: calendarMessages.shorterThanSlot(i, slotMinutes) });
    }
  });
  days.forEach((range, j) => {
    if (!range) return;
    for (let i = 0; i < j; i++) {
      const other = days[i];
      if (!other || other.weekday !== range.weekday) continue;
      if (minutesOfDay(range.start) < minutesOfDay(other.end) && minutesOfDay(other.start) < minutesOfDay(range.end)) {
        const name = WEEKDAY_NAMES[range.weekday]!;
        ctx.addIssue({
          code: "custom",
          path: ["days", j],
          message: calendarMessages.overlap(j, i, name, `${range.start}-${range.end}`, `${other.start}-${other.end}`),
        });
        return;
      }
    }
  });
}

export const SetCalendarHoursBody = z
  .strictObject({
    timezone: z
      .string({ error: calendarMessages.timezone })
      .max(MAX_TIMEZONE_LENGTH, { error: calendarMessages.timezone, abort: true })
      .refine(isIanaTimezone, { error: calendarMessages.timezone })
      .optional()
      .openapi({ description: "IANA timezone of the ranges. Default: the agency's timezone.", example: "America/New_York" }),
    slot_minutes: z
      .number({ error: calendarMessages.slotMinutes })
      .int({ error: calendarMessages.slotMinutes })
      .min(MIN_SLOT_MINUTES, { error: calendarMessages.slotMinutes })
      .max(MAX_SLOT_MINUTES, { error: calendarMessages.slotMinutes })
      .multipleOf(5, { error: calendarMessages.slotMinutes })
      .optional()
      .openapi({
        format: integerFormat(MIN_SLOT_MINUTES, MAX_SLOT_MINUTES),
        description:
          `Slot length in minutes, ${MIN_SLOT_MINUTES} to ${MAX_SLOT_MINUTES} in steps of 5. Without it the calendar follows ` +
          "the agency's `booking.default_slot_minutes` (`GET /settings`), also when that setting changes later.",
        example: 30,
      }),
    days: z
      .array(WorkingRange, { error: (issue) => (issue.input === undefined ? undefined : calendarMessages.days) })
      .max(MAX_DAY_RANGES, { error: calendarMessages.daysTooMany })
      .openapi({
        description:
          `The whole week as working ranges (up to ${MAX_DAY_RANGES}); a weekday without a range is closed. Several ` +
          "ranges on one weekday (a lunch break) must not overlap; touching (`12:00` end, `12:00` start) is fine. " +
          "An empty list closes the calendar.",
      }),
    ...teamMemberBodyShape,
  })
  .superRefine((body, ctx) => checkRanges(body.days, body.slot_minutes, ctx))
  .openapi("SetCalendarHoursRequest", {
    example: {
      timezone: "America/New_York",
      slot_minutes: 30,
      days: [
        { weekday: 1, start: "09:00", end: "12:00" },
        { weekday: 1, start: "13:00", end: "17:00" },
        { weekday: 2, start: "09:00", end: "17:00" },
      ],
    },
  });

export const AvailabilityQuery = dateRangeQuery({ required: true }).safeExtend(teamMemberQueryShape);

const slotExample = {
  start_at: "2026-12-01T14:00:00.000Z",
  end_at: "2026-12-01T14:30:00.000Z",
  time: "09:00",
  local_start: "2026-12-01T09:00:00.000-05:00",
  local_end: "2026-12-01T09:30:00.000-05:00",
};

const localIsoString = () => z.string().min(LOCAL_ISO_LENGTH.min).max(LOCAL_ISO_LENGTH.max).openapi({ format: "date-time" });

export const AvailableSlot = z
  .object({
    start_at: instantString().openapi({ description: "Start, ISO 8601 UTC. Send this value as `start_at` to book the slot." }),
    end_at: instantString().openapi({ description: "End, ISO 8601 UTC." }),
    time: z
      .string()
      .length(TIME_OF_DAY_LENGTH)
      .regex(TIME_OF_DAY)
      .openapi({ description: "Local start time, HH:MM, in the calendar's timezone." }),
    local_start: localIsoString().openapi({ description: "Start as ISO 8601 with the calendar timezone's offset at that instant." }),
    local_end: localIsoString().openapi({ description: "End as ISO 8601 with the calendar timezone's offset at that instant." }),
  })
  .openapi("AvailableSlot", { example: slotExample });

const availabilityExample = {
  agent_uuid: null,
  timezone: "America/New_York",
  slot_minutes: 30,
  from: "2026-12-01",
  to: "2026-12-02",
  dates: [
    { date: "2026-12-01", weekday: 2, slots: [slotExample] },
    {
      date: "2026-12-02",
      weekday: 3,
      slots: [
        {
          start_at: "2026-12-02T14:30:00.000Z",
          end_at: "2026-12-02T15:00:00.000Z",
          time: "09:30",
          local_start: "2026-12-02T09:30:00.000-05:00",
          local_end: "2026-12-02T10:00:00.000-05:00",
        },
      ],
    },
  ],
};

export const Availability = z
  .object({
    agent_uuid: uuidString().nullable().openapi({ description: "The team member whose calendar this is; null for the agency calendar." }),
    timezone: z.string().max(MAX_TIMEZONE_LENGTH).openapi({ description: "The calendar's timezone: dates and local times are in it." }),
    slot_minutes: slotMinutes().openapi({
      description: "Length of every slot: the calendar's own, or the agency's `booking.default_slot_minutes` when it sets none.",
    }),
    from: dateString(),
    to: dateString(),
    dates: z
      .array(
        z.object({
          date: dateString().openapi({ description: "Local date, YYYY-MM-DD." }),
          weekday: weekday().openapi({ description: weekdayDescription }),
          slots: z.array(AvailableSlot).max(MAX_SLOTS_PER_DATE).openapi({ description: "Free slots of the date, in time order." }),
        }),
      )
      .max(MAX_RANGE_DAYS)
      .openapi({ description: "Dates from `from` to `to` that have at least one free slot, in order." }),
  })
  .openapi("Availability", { example: availabilityExample });

export const AvailabilityResponse = z
  .object({ success: z.literal(true), availability: Availability })
  .openapi("AvailabilityResponse", { example: { success: true, availability: availabilityExample } });

const nameField = (name: "first_name" | "last_name") =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, { error: calendarMessages.namesRequired })
    .max(100, { error: `${name} must be at most 100 characters` })
    .openapi({ example: name === "first_name" ? "Ada" : "Lovelace" });

export const CreateBookingBody = z
  .strictObject({
    start_at: startAtField,
    contact_uuid: uuidField("contact_uuid")
      .optional()
      .openapi({ description: "An existing live contact to book for. When given, the name, phone and email fields are ignored." }),
    first_name: nameField("first_name").optional(),
    last_name: nameField("last_name").optional(),
    email: z
      .email({ error: "email must be a valid email address" })
      .max(MAX_EMAIL_LENGTH, { error: "email must be a valid email address" })
      .transform((email) => email.toLowerCase())
      .optional()
      // The transform hides the bound from the document: state it here.
      .openapi({ type: "string", format: "email", maxLength: MAX_EMAIL_LENGTH, example: "ada@example.com" }),
    phone: phoneField("phone").optional(),
    title: titleField.optional(),
    notes: notesField.optional(),
    path_uuid: uuidField("path_uuid")
      .optional()
      .openapi({ description: "The path (funnel) the booking came from; must be a path of your agency.", example: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70" }),
    booking_widget_uuid: uuidField("booking_widget_uuid")
      .optional()
      .openapi({ description: "The booking widget the booking came through (see `GET /booking-widgets`).", example: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d" }),
    ...teamMemberBodyShape,
  })
  .superRefine((body, ctx) => {
    if (body.contact_uuid) return;
    if (!body.first_name || !body.last_name) {
      ctx.addIssue({ code: "custom", path: [body.first_name ? "last_name" : "first_name"], message: calendarMessages.namesRequired });
    }
    if (!body.email && !body.phone) {
      ctx.addIssue({ code: "custom", path: ["phone"], message: calendarMessages.contactMethodRequired });
    }
  })
  .openapi("CreateBookingRequest", {
    example: {
      start_at: "2026-12-01T14:00:00.000Z",
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      phone: "(415) 555-0123",
      notes: "Wants a 3-bedroom near the park.",
    },
  });

export type CreateBookingInput = z.infer<typeof CreateBookingBody>;

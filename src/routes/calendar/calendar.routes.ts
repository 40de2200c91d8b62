import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { messages } from "@/lib/errors";
import { UNKNOWN_PATH_MESSAGE } from "@/domain/paths/path-lookup";
import { AppointmentResponse } from "@/routes/appointments/appointments.schemas";
import { bookingRulesText, calendarMessages } from "@/domain/calendar/calendar.messages";
import {
  AvailabilityQuery,
  AvailabilityResponse,
  CalendarHoursResponse,
  CalendarQuery,
  CreateBookingBody,
  SetCalendarHoursBody,
} from "./calendar.schemas";

const calendarChoice =
  "Without a team member this is the agency calendar; name a team member (`agent_uuid`, or `agentUuid`, " +
  "`user_uuid`, `user`, `agent`, in the query or the body) for that member's own calendar. Each calendar has its " +
  "own hours and its own appointments; a member's calendar does not inherit the agency's hours. A member who is " +
  "not in your agency is 400 `Team member not found in this agency`.";

const dstPolicy =
  "Times are wall-clock times in the calendar's timezone, turned into UTC instants per date, so they follow " +
  "daylight-saving changes (09:00 in New York is 14:00Z in winter and 13:00Z in summer). A range is cut into slots " +
  "of real elapsed minutes: on a spring-forward night the skipped hour has no slots, on a fall-back night the " +
  "repeated hour has slots twice (different UTC instants). A range boundary that does not exist (inside the " +
  "skipped hour) moves forward by the length of the skip; one that happens twice means its first occurrence.";

export const getCalendarHours = partnerRoute({
  method: "get",
  path: "/calendar/hours",
  operationId: "getCalendarHours",
  tags: ["Calendar"],
  summary: "Get available hours",
  description:
    "Returns a calendar's working hours: its timezone, slot length and weekly ranges. `slot_minutes` is the slot " +
    "length in force: the calendar's own (`slot_minutes_source: calendar`) or, for hours set without one, the " +
    "agency's `booking.default_slot_minutes` from `GET /settings` (`slot_minutes_source: settings`). " +
    `${calendarChoice} A calendar whose hours were never set is 404.`,
  scopes: ["appointments"],
  request: { query: CalendarQuery },
  errors: [404],
  errorExamples: {
    400: { error: "Team member not found in this agency" },
    404: { description: "No hours are set for this calendar yet.", error: calendarMessages.hoursNotSet },
  },
  responses: { 200: jsonContent(CalendarHoursResponse, "The calendar's hours.") },
});

export const setCalendarHours = partnerRoute({
  method: "put",
  path: "/calendar/hours",
  operationId: "setCalendarHours",
  tags: ["Calendar"],
  summary: "Set available hours",
  description:
    "Replaces a calendar's working hours as a whole (answers 200 with them, whether they were new or replaced). " +
    `${calendarChoice} \`timezone\` is an IANA name (default: the agency's timezone; UTC offsets are not accepted). ` +
    "`slot_minutes` is the length of every slot and of every appointment booked into one (5 to 240 in steps of 5); " +
    "without it the calendar follows the agency's `booking.default_slot_minutes` (`GET /settings`), including later " +
    "changes of that setting, and the answer's `slot_minutes_source` is `settings` instead of `calendar`. `days` " +
    "lists ranges `{ weekday, start, end }` with weekday 0 = Sunday ... 6 = Saturday and `HH:MM` times (`end` may " +
    "be `24:00`). Each range must start before it ends and be at least one slot long (of the default length when " +
    "no `slot_minutes` is sent); ranges on one weekday must not overlap. Slots are cut from the start of each range; " +
    `a remainder shorter than a slot is not offered. ${dstPolicy} Existing appointments are kept when hours change; ` +
    "slots that overlap them (or their `booking.buffer_minutes`) stay unavailable.",
  scopes: ["appointments"],
  request: { query: CalendarQuery, body: jsonBody(SetCalendarHoursBody) },
  errorExamples: { 400: { error: calendarMessages.startBeforeEnd(0) } },
  responses: { 200: jsonContent(CalendarHoursResponse, "The calendar's new hours.") },
});

export const listAvailability = partnerRoute({
  method: "get",
  path: "/calendar/availability",
  operationId: "listAvailability",
  tags: ["Calendar"],
  summary: "List available dates",
  description:
    "Lists the free slots of a calendar per date, from `from` to `to` (local dates in the calendar's timezone, " +
    "YYYY-MM-DD, 1 to 90 days inclusive). Only dates with at least one free slot are listed. A slot is free when it " +
    "lies in the working hours and overlaps no booked, completed or no-show appointment of the calendar. Slots are " +
    "`slot_minutes` long: the calendar's own, or the agency's `booking.default_slot_minutes` for hours set without " +
    `one. ${bookingRulesText} ${calendarChoice} ${dstPolicy} ` +
    "Each slot carries UTC `start_at`/`end_at` (send `start_at` to book it) and its local wall-clock time. A " +
    `calendar without hours is 400 \`${calendarMessages.misconfigured}\`.`,
  scopes: ["calendar"],
  request: { query: AvailabilityQuery },
  errorExamples: { 400: { error: messages.invalidDateSpan } },
  responses: { 200: jsonContent(AvailabilityResponse, "Free slots by date.") },
});

export const createBooking = partnerRoute({
  method: "post",
  path: "/calendar/bookings",
  operationId: "createBooking",
  tags: ["Calendar"],
  summary: "Create booking",
  description:
    "Books one slot and answers 201 with the appointment (status `booked`, lasting one slot of the calendar). " +
    "`start_at` must be exactly the start of a free slot, as `GET /calendar/availability` lists them: in the " +
    "calendar's hours, cut into slots of its `slot_minutes` (or the agency's `booking.default_slot_minutes` when the " +
    `hours set none), and allowed by the booking settings. ${bookingRulesText} A slot that breaks any of this is 409 ` +
    `\`${calendarMessages.slotUnavailable}\`. Of concurrent bookings of one slot, or of slots the buffer keeps ` +
    "apart, exactly one succeeds; the others get that 409. " +
    `${calendarChoice} ` +
    "The contact is `contact_uuid` (a live contact of your agency, else 400 `Contact not found`), or is found or " +
    "created from `first_name`, `last_name` and `phone` or `email`: a live contact with that email (else that " +
    "phone) is reused unchanged, otherwise a new contact is created (with `path_uuid`). The contact is kept even if " +
    "the slot turns out to be taken. `path_uuid` must be a path of your agency (else 400 " +
    `\`${UNKNOWN_PATH_MESSAGE}\`). \`booking_widget_uuid\` must be a widget of your agency (else 400); it books ` +
    "its team member's calendar, gives its name as the default `title`, and its `duration_minutes` must equal the " +
    "calendar's slot length in force (else 400). An inactive widget is 409: one whose team member was removed from " +
    `the agency answers \`${calendarMessages.widgetMemberRemoved}\`. A calendar without hours is 400 ` +
    "(misconfigured calendar). Send an `Idempotency-Key` " +
    "to retry safely: a retry returns the first answer instead of booking twice.",
  scopes: ["calendar"],
  request: { query: CalendarQuery, body: jsonBody(CreateBookingBody) },
  errorExamples: {
    400: { error: calendarMessages.namesRequired },
    409: {
      description:
        "The slot is outside the hours, taken, sooner than the minimum notice or within the buffer of another " +
        "appointment; or the booking widget is inactive",
      error: calendarMessages.slotUnavailable,
    },
  },
  responses: { 201: jsonContent(AppointmentResponse, "The booked appointment.") },
});

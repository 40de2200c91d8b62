import { jsonBody, jsonContent, partnerRoute } from "@/lib/openapi";
import { messages } from "@/lib/errors";
import { UNKNOWN_PATH_MESSAGE } from "@/routes/paths/path-lookup";
import { AppointmentResponse } from "@/routes/appointments/appointments.schemas";
import { calendarMessages } from "./calendar.messages";
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
  description: `Returns a calendar's working hours: its timezone, slot length and weekly ranges. ${calendarChoice} A calendar whose hours were never set is 404.`,
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
    "`slot_minutes` is the length of every slot and of every appointment booked into one (5 to 240 in steps of 5, " +
    "default 30). `days` lists ranges `{ weekday, start, end }` with weekday 0 = Sunday ... 6 = Saturday and " +
    "`HH:MM` times (`end` may be `24:00`). Each range must start before it ends and be at least one slot long; " +
    "ranges on one weekday must not overlap. Slots are cut from the start of each range; a remainder shorter than " +
    `a slot is not offered. ${dstPolicy} Existing appointments are kept when hours change; slots that overlap them ` +
    "stay unavailable.",
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
    "lies in the working hours, starts after the current time (slots of today that already began are not offered) " +
    `and overlaps no booked, completed or no-show appointment of the calendar. ${calendarChoice} ${dstPolicy} ` +
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
    "`start_at` must be exactly the start of a slot in the calendar's hours that starts in the future and is free " +
    `(as listed by \`GET /calendar/availability\`); otherwise 409 \`${calendarMessages.slotUnavailable}\`. Of ` +
    "concurrent bookings of one slot exactly one succeeds; the others get that 409. " +
    `${calendarChoice} ` +
    "The contact is `contact_uuid` (a live contact of your agency, else 400 `Contact not found`), or is found or " +
    "created from `first_name`, `last_name` and `phone` or `email`: a live contact with that email (else that " +
    "phone) is reused unchanged, otherwise a new contact is created (with `path_uuid`). The contact is kept even if " +
    "the slot turns out to be taken. `path_uuid` must be a path of your agency (else 400 " +
    `\`${UNKNOWN_PATH_MESSAGE}\`). \`booking_widget_uuid\` must be an active widget of your agency; it books its ` +
    "team member's calendar, gives its name as the default `title`, and its `duration_minutes` must equal the " +
    "calendar's `slot_minutes`. A calendar without hours is 400 (misconfigured calendar). Send an `Idempotency-Key` " +
    "to retry safely: a retry returns the first answer instead of booking twice.",
  scopes: ["calendar"],
  request: { query: CalendarQuery, body: jsonBody(CreateBookingBody) },
  errorExamples: {
    400: { error: calendarMessages.namesRequired },
    409: { description: "The slot is outside the hours, in the past or taken.", error: calendarMessages.slotUnavailable },
  },
  responses: { 201: jsonContent(AppointmentResponse, "The booked appointment.") },
});

import { z } from "@hono/zod-openapi";
import { appointmentStatuses } from "@/db/schema";
import { instantString, uuidString } from "@/lib/bounded";
import { dateRangeQuery } from "@/lib/date-range";
import { uuidField, uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { MAX_DATETIME_INPUT_LENGTH } from "@/lib/zoned-time";
import { calendarMessages } from "@/domain/calendar/calendar.messages";
import { teamMemberQueryShape } from "@/routes/team-member.schemas";
import { MAX_NAME_LENGTH } from "@/domain/contacts/contacts.rules";

export const MAX_NOTES_LENGTH = 2000;
/** Also the longest booking widget name, the title of a booking through a widget. */
export const MAX_TITLE_LENGTH = 200;
/** A contact's name as records show it: first name, a space, last name. */
export const MAX_CONTACT_FULL_NAME_LENGTH = 2 * MAX_NAME_LENGTH + 1;

export const appointmentMessages = {
  notFound: "Appointment not found",
  canceledCannotChange: "A canceled appointment cannot be changed",
  onlyBookedReschedule: (status: string) => `Only a booked appointment can be rescheduled; this one is ${status}`,
  alreadyCanceled: "Appointment is already canceled",
  onlyBookedCancel: (status: string) => `Only a booked appointment can be canceled; this one is ${status}`,
  changedConcurrently: "The appointment changed while this request was processed; read it again and retry",
  status: "status must be completed or no_show (cancel with POST /appointments/{appointment_uuid}/cancel)",
  statusFilter: `status must be one of ${appointmentStatuses.join(", ")}`,
  notes: `notes must be a string of at most ${MAX_NOTES_LENGTH} characters`,
  title: `title must be 1 to ${MAX_TITLE_LENGTH} characters`,
} as const;

export const appointmentExample = {
  appointment_uuid: "0b6f9a1e-2c3d-4e5f-8a9b-1c2d3e4f5a6b",
  contact_uuid: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21",
  contact_name: "Ada Lovelace",
  agent_uuid: null,
  start_at: "2026-12-01T14:00:00.000Z",
  end_at: "2026-12-01T14:30:00.000Z",
  status: "booked" as const,
  title: "Buyer consultation",
  notes: "Wants a 3-bedroom near the park.",
  booking_widget_uuid: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
  path_uuid: null,
  created_at: "2026-11-21T15:02:11.123Z",
  updated_at: "2026-11-21T15:02:11.123Z",
  canceled_at: null,
};

export const Appointment = z
  .object({
    appointment_uuid: uuidString().openapi({ description: "Identifier of the appointment." }),
    contact_uuid: uuidString().openapi({ description: "The contact the appointment is with." }),
    contact_name: z
      .string()
      .max(MAX_CONTACT_FULL_NAME_LENGTH)
      .nullable()
      .openapi({ description: "The contact's first and last name (current values)." }),
    agent_uuid: uuidString()
      .nullable()
      .openapi({ description: "The team member whose calendar holds the appointment; null for the agency calendar." }),
    start_at: instantString().openapi({ description: "Start, ISO 8601 UTC. Always the start of one slot of the calendar." }),
    end_at: instantString().openapi({ description: "End, ISO 8601 UTC: start plus the calendar's `slot_minutes` when booked." }),
    status: z.enum(appointmentStatuses).openapi({
      description: "`booked` (holds its slot), `canceled` (frees the slot), `completed` or `no_show` (set by PATCH; still hold the slot).",
    }),
    title: z
      .string()
      .max(MAX_TITLE_LENGTH)
      .nullable()
      .openapi({ description: "Free-text title; a widget booking defaults to the widget's name." }),
    notes: z.string().max(MAX_NOTES_LENGTH).nullable(),
    booking_widget_uuid: uuidString().nullable().openapi({ description: "The booking widget the appointment was booked through." }),
    path_uuid: uuidString().nullable().openapi({ description: "The path (funnel) the appointment was booked from." }),
    created_at: instantString(),
    updated_at: instantString(),
    canceled_at: instantString().nullable().openapi({ description: "When the appointment was canceled; null otherwise." }),
  })
  .openapi("Appointment", { example: appointmentExample });

export const AppointmentResponse = z
  .object({ success: z.literal(true), appointment: Appointment })
  .openapi("AppointmentResponse", { example: { success: true, appointment: appointmentExample } });

export const AppointmentListResponse = z
  .object({ success: z.literal(true), appointments: z.array(Appointment).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("AppointmentListResponse", {
    example: { success: true, appointments: [appointmentExample], pagination: singlePageExample },
  });

export const AppointmentParams = z.object({ appointment_uuid: uuidParam("appointment_uuid") });

export const ListAppointmentsQuery = dateRangeQuery({ required: false }).safeExtend({
  ...paginationQuery.shape,
  status: z
    .enum(appointmentStatuses, { error: appointmentMessages.statusFilter })
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only appointments with this status.", example: "booked" }),
  contact_uuid: uuidField("contact_uuid")
    .optional()
    .openapi({ param: { name: "contact_uuid", in: "query" }, description: "Only appointments with this contact.", example: appointmentExample.contact_uuid }),
  ...teamMemberQueryShape,
});

export const notesField = z
  .string({ error: appointmentMessages.notes })
  .max(MAX_NOTES_LENGTH, appointmentMessages.notes)
  .openapi({ description: `Free text, up to ${MAX_NOTES_LENGTH} characters.`, example: "Wants a 3-bedroom near the park." });

export const titleField = z
  .string({ error: appointmentMessages.title })
  .trim()
  .min(1, appointmentMessages.title)
  .max(MAX_TITLE_LENGTH, appointmentMessages.title)
  .openapi({ description: `Free text, 1 to ${MAX_TITLE_LENGTH} characters.`, example: "Buyer consultation" });

export const startAtField = z.iso
  .datetime({ offset: true, error: (issue) => (issue.input === undefined ? undefined : calendarMessages.startAt) })
  // Any number of fractional digits matches the format: bound the length too.
  .max(MAX_DATETIME_INPUT_LENGTH, { error: calendarMessages.startAt })
  .openapi({
    description:
      "Start of the slot, ISO 8601 with `Z` or an offset (use a `start_at` from `GET /calendar/availability`). " +
      "It must be exactly the start of a free slot of the calendar.",
    example: "2026-12-01T14:00:00.000Z",
  });

export const UpdateAppointmentBody = z
  .strictObject({
    start_at: startAtField.optional(),
    notes: notesField.nullable().optional(),
    title: titleField.nullable().optional(),
    status: z
      .enum(["completed", "no_show"], { error: appointmentMessages.status })
      .optional()
      .openapi({ description: "`completed` or `no_show`. To cancel, use the cancel operation." }),
  })
  .openapi("UpdateAppointmentRequest", {
    example: { start_at: "2026-12-02T15:00:00.000Z", notes: "Moved at the client's request." },
  });

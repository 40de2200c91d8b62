import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { messages } from "@/lib/errors";
import { bookingRulesText, calendarMessages } from "@/domain/calendar/calendar.messages";
import {
  AppointmentListResponse,
  AppointmentParams,
  AppointmentResponse,
  ListAppointmentsQuery,
  UpdateAppointmentBody,
  appointmentMessages,
} from "./appointments.schemas";

const notFoundExample = { 404: { description: "No appointment with this uuid in your agency.", error: appointmentMessages.notFound } };

export const listAppointments = partnerRoute({
  method: "get",
  path: "/appointments",
  operationId: "listAppointments",
  tags: ["Appointments"],
  summary: "List appointments",
  description:
    "Lists the agency's appointments of every calendar in agenda order (by `start_at`, earliest first; an appointment " +
    "rescheduled during a cursor walk moves with its new time, so it can be passed over or come twice), canceled " +
    "ones included unless filtered out. Filters combine with AND: `from` and `to` (YYYY-MM-DD, both or neither, 1 to " +
    "90 days inclusive) keep appointments starting on those dates in the agency's timezone; `status`; a team member " +
    "(`agent_uuid` or its other names `agentUuid`, `user_uuid`, `user`, `agent`; a member of another agency is " +
    "400) keeps that member's calendar; `contact_uuid` keeps one contact's. Paginated with `page` and `limit`.",
  scopes: ["appointments"],
  request: { query: ListAppointmentsQuery },
  errorExamples: { 400: { error: messages.invalidDateFormat } },
  responses: { 200: jsonContent(AppointmentListResponse, "One page of appointments.") },
});

export const getAppointment = partnerRoute({
  method: "get",
  path: "/appointments/{appointment_uuid}",
  operationId: "getAppointment",
  tags: ["Appointments"],
  summary: "Get appointment",
  description: "Returns one appointment of your agency, whatever its status.",
  scopes: ["appointments"],
  request: { params: AppointmentParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(AppointmentResponse, "The appointment.") },
});

export const updateAppointment = partnerRoute({
  method: "patch",
  path: "/appointments/{appointment_uuid}",
  operationId: "updateAppointment",
  tags: ["Appointments"],
  summary: "Update appointment",
  description:
    "Changes any subset of `start_at`, `notes`, `title` and `status`; fields not sent are kept, and `notes` and " +
    "`title` can be cleared with `null`. A new `start_at` reschedules within the same calendar (to change team " +
    "member, cancel and book again): it must be the start of a free slot of the calendar, exactly as for " +
    "`POST /calendar/bookings` (the calendar's hours, cut into slots of its `slot_minutes` or of the agency's " +
    `\`booking.default_slot_minutes\`), otherwise 409 \`${calendarMessages.slotUnavailable}\`. ${bookingRulesText} ` +
    "The appointment's own current time does not count against the buffer, so it can move by less than the buffer. " +
    "It takes the length of one slot and frees its old slot. Only a `booked` appointment can be rescheduled (409 " +
    "otherwise). " +
    "`status` can be set to `completed` or `no_show` (and back between the two); to cancel use " +
    "`POST /appointments/{appointment_uuid}/cancel`. A canceled appointment cannot be changed (409).",
  scopes: ["appointments"],
  request: { params: AppointmentParams, body: jsonBody(UpdateAppointmentBody) },
  errors: [409],
  errorExamples: {
    400: { error: appointmentMessages.status },
    ...notFoundExample,
    409: {
      description:
        "The new slot is not available (taken, outside the hours, sooner than the minimum notice or within the buffer of " +
        "another appointment), or the appointment's status does not allow the change.",
      error: calendarMessages.slotUnavailable,
    },
  },
  responses: { 200: jsonContent(AppointmentResponse, "The updated appointment.") },
});

export const cancelAppointment = partnerRoute({
  method: "post",
  path: "/appointments/{appointment_uuid}/cancel",
  operationId: "cancelAppointment",
  tags: ["Appointments"],
  summary: "Cancel appointment",
  description:
    "Cancels a `booked` appointment: its status becomes `canceled`, `canceled_at` is set and its slot is free to " +
    `book again. Canceling a canceled appointment is 409 \`${appointmentMessages.alreadyCanceled}\`; a completed or ` +
    "no-show appointment cannot be canceled (409). Takes no body.",
  scopes: ["appointments"],
  request: { params: AppointmentParams },
  errorExamples: {
    ...notFoundExample,
    409: { description: "The appointment is not booked (already canceled, completed or no-show).", error: appointmentMessages.alreadyCanceled },
  },
  responses: { 200: jsonContent(AppointmentResponse, "The canceled appointment.") },
});

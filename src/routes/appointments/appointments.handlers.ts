import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { localRangeToUtc } from "@/lib/date-range";
import { requestedTeamMember, TEAM_MEMBER_NOT_FOUND } from "@/domain/users/team-member";
import { calendarMessages } from "@/domain/calendar/calendar.messages";
import { readHours, toWorkingHours } from "@/domain/calendar/calendar.repository";
import { bookableSlot } from "@/domain/calendar/slots";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/calendar/appointments.repository";
import type * as routes from "./appointments.routes";
import { appointmentMessages } from "./appointments.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const appointmentBody = (record: repo.AppointmentRecord) => ({
  success: true as const,
  appointment: repo.toPublicAppointment(record),
});

export const listAppointments: Handler<"listAppointments"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.appointmentOrder);
  const memberId = requestedTeamMember(query);
  const dates = query.from !== undefined && query.to !== undefined ? { from: query.from, to: query.to } : null;
  // Two D1 round trips at most: the member check with the timezone (when needed), then the list.
  const { memberFound, timezone } = await repo.readListSetup(db, agencyId, memberId, dates !== null);
  if (!memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  let startsFrom: string | undefined;
  let startsBefore: string | undefined;
  if (dates && timezone !== null) {
    // Dates are the agency's local dates: [from 00:00, the day after `to` 00:00).
    const range = localRangeToUtc(dates.from, dates.to, timezone);
    startsFrom = range?.start.toISOString();
    startsBefore = range?.end.toISOString();
  }
  const found = await repo.listAppointments(
    db,
    agencyId,
    { startsFrom, startsBefore, status: query.status, memberId: memberId ?? undefined, contactId: query.contact_uuid },
    asked,
  );
  const { rows, pagination } = await answeredPage(c, asked, found, repo.appointmentKeys);
  return c.json({ success: true as const, appointments: rows.map(repo.toPublicAppointment), pagination }, 200);
};

export const getAppointment: Handler<"getAppointment"> = async (c) => {
  const record = await repo.getAppointment(c.var.db, c.var.caller.agencyId, c.req.valid("param").appointment_uuid);
  if (!record) throw notFound(appointmentMessages.notFound);
  return c.json(appointmentBody(record), 200);
};

export const updateAppointment: Handler<"updateAppointment"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const body = c.req.valid("json");
  const record = await repo.getAppointment(db, agencyId, c.req.valid("param").appointment_uuid);
  if (!record) throw notFound(appointmentMessages.notFound);
  const current = record.appointment;
  if (Object.keys(body).length === 0) return c.json(appointmentBody(record), 200);
  if (current.status === "canceled") throw conflict(appointmentMessages.canceledCannotChange);

  const patch: repo.AppointmentPatch = { notes: body.notes, title: body.title, status: body.status };
  if (body.start_at !== undefined && Date.parse(body.start_at) !== Date.parse(current.startAt)) {
    if (current.status !== "booked") throw conflict(appointmentMessages.onlyBookedReschedule(current.status));
    // One D1 batch: the calendar's hours and the booking settings in force. The calendar is the
    // appointment's own, even if its team member has since been removed.
    const { hours, settings } = await readHours(db, agencyId, current.memberId, { checkMember: false });
    if (!hours) throw badRequest(calendarMessages.misconfigured);
    const slot = bookableSlot(toWorkingHours(hours, settings), settings.booking, Date.parse(body.start_at), Date.now());
    if (!slot) throw conflict(calendarMessages.slotUnavailable);
    patch.reschedule = { startAt: new Date(slot.start).toISOString(), endAt: new Date(slot.end).toISOString(), rules: settings.booking };
  }

  const updated = await repo.updateAppointment(db, agencyId, current, patch);
  if (!updated) {
    const now = await repo.getAppointment(db, agencyId, current.id);
    if (!now) throw notFound(appointmentMessages.notFound);
    if (now.appointment.status === "canceled") throw conflict(appointmentMessages.canceledCannotChange);
    if (now.appointment.status !== current.status) throw conflict(appointmentMessages.changedConcurrently);
    throw conflict(calendarMessages.slotUnavailable);
  }
  return c.json(appointmentBody({ ...record, appointment: updated }), 200);
};

export const cancelAppointment: Handler<"cancelAppointment"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const id = c.req.valid("param").appointment_uuid;
  const canceled = await repo.cancelAppointment(db, agencyId, id);
  const record = await repo.getAppointment(db, agencyId, id);
  if (!record) throw notFound(appointmentMessages.notFound);
  if (!canceled) {
    if (record.appointment.status === "canceled") throw conflict(appointmentMessages.alreadyCanceled);
    throw conflict(appointmentMessages.onlyBookedCancel(record.appointment.status));
  }
  return c.json(appointmentBody({ ...record, appointment: canceled }), 200);
};

import type { RouteHandler } from "@hono/zod-openapi";
import type { Db } from "@/db/client";
import type { AppBindings } from "@/lib/context";
import { ApiError, badRequest, conflict, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { requestedTeamMember, TEAM_MEMBER_NOT_FOUND } from "@/domain/users/team-member";
import * as appointmentsRepo from "@/domain/calendar/appointments.repository";
import { getBookingWidget, isActive } from "@/domain/booking-widgets/booking-widgets.repository";
import * as contactsRepo from "@/domain/contacts/contacts.repository";
import { assertKnownPath } from "@/domain/paths/path-lookup";
import { recordPathEvent } from "@/domain/paths/path-events.repository";
import { calendarMessages } from "@/domain/calendar/calendar.messages";
import * as repo from "@/domain/calendar/calendar.repository";
import type * as routes from "./calendar.routes";
import { rangesShorterThanSlot, type CreateBookingInput } from "./calendar.schemas";
import { availableDates, bookableSlot, publicSlot, rangeBoundsInAnyZone } from "@/domain/calendar/slots";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const getCalendarHours: Handler<"getCalendarHours"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const memberId = requestedTeamMember(c.req.valid("query"));
  const { memberFound, hours, settings } = await repo.readHours(db, agencyId, memberId);
  if (!memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (!hours) throw notFound(calendarMessages.hoursNotSet);
  return c.json({ success: true as const, hours: repo.toPublicHours(hours, settings) }, 200);
};

export const setCalendarHours: Handler<"setCalendarHours"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const body = c.req.valid("json");
  const memberId = requestedTeamMember(c.req.valid("query"), body);
  const { memberFound, settings } = await repo.readHoursSetup(db, agencyId, memberId);
  if (!memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (body.slot_minutes === undefined) {
    const short = rangesShorterThanSlot(body.days, settings.booking.default_slot_minutes);
    if (short[0]) throw badRequest(short[0].message, short);
  }
  const hours = await repo.setHours(db, agencyId, memberId, {
    timezone: body.timezone ?? settings.timezone,
    // Null: the calendar follows booking.default_slot_minutes, also when it changes later.
    slotMinutes: body.slot_minutes ?? null,
    days: body.days,
  });
  return c.json({ success: true as const, hours: repo.toPublicHours(hours, settings) }, 200);
};

export const listAvailability: Handler<"listAvailability"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const query = c.req.valid("query");
  // dateRangeQuery({ required: true }) has validated both dates; its type cannot say so.
  const range = { from: query.from!, to: query.to! };
  const memberId = requestedTeamMember(query);
  // One D1 batch: the member check, the hours, the settings, and the calendar's live
  // appointments around the range (bounded for any timezone, as the hours are not known yet).
  const read = await repo.readAvailability(db, agencyId, memberId, rangeBoundsInAnyZone(range.from, range.to));
  if (!read.memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (!read.hours) throw badRequest(calendarMessages.misconfigured);
  const row = read.hours;
  const hours = repo.toWorkingHours(row, read.settings);
  const busy = read.busy.map((b) => ({ start: Date.parse(b.startAt), end: Date.parse(b.endAt) }));
  const dates = availableDates(hours, range, busy, read.settings.booking, Date.now());
  return c.json(
    {
      success: true as const,
      availability: {
        agent_uuid: row.memberId,
        timezone: row.timezone,
        slot_minutes: hours.slotMinutes,
        from: range.from,
        to: range.to,
        dates: dates.map((d) => ({ date: d.date, weekday: d.weekday, slots: d.slots.map(publicSlot) })),
      },
    },
    200,
  );
};

/**
 * The contact of a booking: the given one, or a live one with the same email (else phone),
 * or a new one. Two bookings creating the same person at once: the contacts' unique indexes
 * let one create it and the other finds and reuses it.
 */
async function contactForBooking(db: Db, agencyId: string, body: CreateBookingInput) {
  if (body.contact_uuid) {
    const contact = await contactsRepo.getLiveContact(db, agencyId, body.contact_uuid);
    if (!contact) throw badRequest(calendarMessages.contactNotFound);
    return contact;
  }
  const identity = { email: body.email ?? null, phone: body.phone ?? null };
  const existing = await contactsRepo.findLiveContact(db, agencyId, identity);
  if (existing) return existing;
  try {
    return await contactsRepo.createContact(db, agencyId, {
      firstName: body.first_name!,
      lastName: body.last_name!,
      ...identity,
      tags: [],
      source: null,
      pathId: body.path_uuid?.toLowerCase() ?? null,
      customFields: {},
      externalId: null,
    });
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "conflict")) throw error;
    const winner = await contactsRepo.findLiveContact(db, agencyId, identity);
    if (!winner) throw error;
    return winner;
  }
}

export const createBooking: Handler<"createBooking"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const body = c.req.valid("json");
  let memberId = requestedTeamMember(c.req.valid("query"), body);

  const widget = body.booking_widget_uuid ? await getBookingWidget(db, agencyId, body.booking_widget_uuid) : null;
  if (body.booking_widget_uuid) {
    if (!widget) throw badRequest(calendarMessages.unknownWidget);
    if (!isActive(widget)) throw conflict(widget.memberRemoved ? calendarMessages.widgetMemberRemoved : calendarMessages.inactiveWidget);
    if (widget.memberId) {
      if (memberId && memberId !== widget.memberId) throw badRequest(calendarMessages.widgetOtherMember);
      memberId = widget.memberId;
    }
  }
  if (body.path_uuid) await assertKnownPath(db, agencyId, body.path_uuid);

  // One D1 batch: the member check, the calendar's hours and the booking settings in force.
  const { memberFound, hours: row, settings } = await repo.readHours(db, agencyId, memberId);
  if (!memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (!row) throw badRequest(calendarMessages.misconfigured);
  const hours = repo.toWorkingHours(row, settings);
  if (widget && widget.durationMinutes !== hours.slotMinutes) {
    throw badRequest(calendarMessages.widgetDuration(widget.durationMinutes, hours.slotMinutes));
  }
  const slot = bookableSlot(hours, settings.booking, Date.parse(body.start_at), Date.now());
  if (!slot) throw conflict(calendarMessages.slotUnavailable);

  const contact = await contactForBooking(db, agencyId, body);
  const appointment = await appointmentsRepo.insertAppointment(db, agencyId, {
    id: newId(),
    contactId: contact.id,
    memberId,
    calendarKey: row.calendarKey,
    startAt: new Date(slot.start).toISOString(),
    endAt: new Date(slot.end).toISOString(),
    title: body.title ?? widget?.name ?? null,
    notes: body.notes ?? null,
    bookingWidgetId: widget?.id ?? null,
    pathId: body.path_uuid?.toLowerCase() ?? null,
  }, settings.booking);
  if (appointment.pathId) await recordPathEvent(db, agencyId, { pathId: appointment.pathId, type: "booking", contactId: contact.id });
  return c.json(
    {
      success: true as const,
      appointment: appointmentsRepo.toPublicAppointment({ appointment, firstName: contact.firstName, lastName: contact.lastName }),
    },
    201,
  );
};

import type { RouteHandler } from "@hono/zod-openapi";
import { agencyTimezone } from "@/db/agency-timezone";
import type { Db } from "@/db/client";
import type { AppBindings } from "@/lib/context";
import { ApiError, badRequest, conflict, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { requestedTeamMember, resolveTeamMember, TEAM_MEMBER_NOT_FOUND } from "@/lib/team-member";
import * as appointmentsRepo from "@/routes/appointments/appointments.repository";
import { getBookingWidget } from "@/routes/booking-widgets/booking-widgets.repository";
import * as contactsRepo from "@/routes/contacts/contacts.repository";
import { assertKnownPath } from "@/routes/paths/path-lookup";
import { recordPathEvent } from "@/routes/paths/path-events.repository";
import { calendarMessages, DEFAULT_SLOT_MINUTES } from "./calendar.messages";
import * as repo from "./calendar.repository";
import type * as routes from "./calendar.routes";
import type { CreateBookingInput } from "./calendar.schemas";
import { availableDates, publicSlot, rangeBounds, rangeBoundsInAnyZone, slotStartingAt } from "./slots";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

/** The hours a calendar needs before it can be read or booked (SPEC: misconfigured calendar is 400). */
async function requireHours(db: Db, agencyId: string, memberId: string | null) {
  const hours = await repo.getHours(db, agencyId, memberId);
  if (!hours) throw badRequest(calendarMessages.misconfigured);
  return hours;
}

export const getCalendarHours: Handler<"getCalendarHours"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const memberId = requestedTeamMember(c.req.valid("query"));
  const { memberFound, hours } = await repo.readHours(db, agencyId, memberId);
  if (!memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (!hours) throw notFound(calendarMessages.hoursNotSet);
  return c.json({ success: true as const, hours: repo.toPublicHours(hours) }, 200);
};

export const setCalendarHours: Handler<"setCalendarHours"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const body = c.req.valid("json");
  const member = await resolveTeamMember(db, agencyId, c.req.valid("query"), body);
  const timezone = body.timezone ?? (await agencyTimezone(db, agencyId));
  const hours = await repo.setHours(db, agencyId, member?.id ?? null, {
    timezone,
    slotMinutes: body.slot_minutes ?? DEFAULT_SLOT_MINUTES,
    days: body.days,
  });
  return c.json({ success: true as const, hours: repo.toPublicHours(hours) }, 200);
};

export const listAvailability: Handler<"listAvailability"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const query = c.req.valid("query");
  // dateRangeQuery({ required: true }) has validated both dates; its type cannot say so.
  const range = { from: query.from!, to: query.to! };
  const memberId = requestedTeamMember(query);
  // One D1 batch: the member check, the hours, and the calendar's live appointments around
  // the range (bounded for any timezone, as the hours are not known yet).
  const read = await repo.readAvailability(db, agencyId, memberId, rangeBoundsInAnyZone(range.from, range.to));
  if (!read.memberFound) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  if (!read.hours) throw badRequest(calendarMessages.misconfigured);
  const row = read.hours;
  const hours = repo.toWorkingHours(row);
  const bounds = rangeBounds(hours, range.from, range.to);
  // Live appointments that overlap the range in the calendar's own timezone.
  const busy = bounds
    ? read.busy
        .map((b) => ({ start: Date.parse(b.startAt), end: Date.parse(b.endAt) }))
        .filter((b) => b.start < bounds.end && b.end > bounds.start)
    : [];
  const dates = availableDates(hours, range, busy, Date.now());
  return c.json(
    {
      success: true as const,
      availability: {
        agent_uuid: row.memberId,
        timezone: row.timezone,
        slot_minutes: row.slotMinutes,
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
  const member = await resolveTeamMember(db, agencyId, c.req.valid("query"), body);
  let memberId = member?.id ?? null;

  const widget = body.booking_widget_uuid ? await getBookingWidget(db, agencyId, body.booking_widget_uuid) : null;
  if (body.booking_widget_uuid) {
    if (!widget) throw badRequest(calendarMessages.unknownWidget);
    if (!widget.active) throw badRequest(calendarMessages.inactiveWidget);
    if (widget.memberId) {
      if (memberId && memberId !== widget.memberId) throw badRequest(calendarMessages.widgetOtherMember);
      memberId = widget.memberId;
    }
  }
  if (body.path_uuid) await assertKnownPath(db, agencyId, body.path_uuid);

  const row = await requireHours(db, agencyId, memberId);
  if (widget && widget.durationMinutes !== row.slotMinutes) {
    throw badRequest(calendarMessages.widgetDuration(widget.durationMinutes, row.slotMinutes));
  }
  const slot = slotStartingAt(repo.toWorkingHours(row), Date.parse(body.start_at));
  if (!slot || slot.start <= Date.now()) throw conflict(calendarMessages.slotUnavailable);

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
  });
  if (appointment.pathId) await recordPathEvent(db, agencyId, { pathId: appointment.pathId, type: "booking", contactId: contact.id });
  return c.json(
    {
      success: true as const,
      appointment: appointmentsRepo.toPublicAppointment({ appointment, firstName: contact.firstName, lastName: contact.lastName }),
    },
    201,
  );
};

import { z } from "@hono/zod-openapi";
import { instantString, uuidString } from "@/lib/bounded";
import { eventTypes, type EventType } from "@/domain/events/events";
import { uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { Appointment } from "@/routes/appointments/appointments.schemas";
import { ConnectedApp } from "@/routes/connected-apps/connected-app.schemas";
import { Contact } from "@/routes/contacts/contacts.schemas";
import { Field } from "@/routes/fields/fields.schemas";
import { LeadOrder } from "@/routes/lead-orders/lead-orders.schemas";
import { Message } from "@/routes/messages/messages.schemas";
import { Path } from "@/routes/paths/paths.schemas";
import { Invite, TeamMember } from "@/routes/users/users.schemas";
import { VoiceCall } from "@/routes/voice-ai/voice-ai.schemas";
import { MAX_ENDPOINTS_PER_AGENCY } from "@/domain/webhook-endpoints/webhook-endpoints.rules";
import { PING_MESSAGE } from "@/domain/event-feed/event-objects";

/** The text of every `ping` object. */

export const eventMessages = {
  notFound: "Event not found",
  pingRedeliver: "A ping is a test send: send another with POST /webhook-endpoints/{webhook_endpoint_uuid}/test",
  type: `type must be one of: ${eventTypes.join(", ")}`,
  instant: (name: string) => `${name} must be an ISO 8601 date-time with a UTC offset, e.g. 2026-11-21T14:05:00.000Z`,
  range: "from must be before to",
} as const;

const ofPrefix = (prefix: string) => eventTypes.filter((t) => t.startsWith(`${prefix}.`)) as [EventType, ...EventType[]];

const exampleEvent = {
  event_uuid: "0b7e4c1a-9d2f-4e6b-8a3c-5f1e2d4c6b8a",
  type: "contact.created",
  created_at: "2026-11-21T14:05:00.000Z",
  data: {
    object: {
      contact_uuid: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21",
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      phone: "+14155550123",
      tags: ["buyer"],
      source: "website",
      path_uuid: null,
      custom_fields: {},
      external_id: null,
      sms_opt_out: false,
      created_at: "2026-11-21T14:05:00.000Z",
      updated_at: "2026-11-21T14:05:00.000Z",
      deleted_at: null,
    },
  },
};

const PingObject = z
  .object({
    webhook_endpoint_uuid: uuidString().openapi({ description: "The endpoint the test was sent to." }),
    message: z.string().max(PING_MESSAGE.length).openapi({ example: PING_MESSAGE }),
  })
  .openapi("PingObject", { description: "The object of a `ping` (a test send)." });

/** One event schema per resource: its types and the public record it carries. */
function eventOf(name: string, types: [EventType, ...EventType[]], object: z.ZodType, description: string) {
  return z
    .object({
      event_uuid: uuidString().openapi({ description: "Identifier of the event; the `webhook-id` header of its deliveries." }),
      type: z.enum(types).openapi({ description: "What happened." }),
      created_at: instantString().openapi({ description: "When it happened (UTC)." }),
      data: z.object({ object }).openapi({ description: "`object`: the record as the change left it, exactly as the API returns it." }),
    })
    .openapi(name, { description });
}

export const Event = z
  .discriminatedUnion("type", [
    eventOf("ContactEvent", ofPrefix("contact"), Contact, "A contact was created, updated, soft-deleted or restored."),
    eventOf("AppointmentEvent", ofPrefix("appointment"), Appointment, "An appointment was booked, changed (rescheduled, notes, status) or canceled."),
    eventOf(
      "CallEvent",
      ofPrefix("call"),
      VoiceCall,
      "A Voice AI call was created (`call.scheduled`, whether queued or scheduled), dialed (`call.started`), ended " +
        "(`call.completed` or `call.failed`) or canceled; `call.updated` for any other change of its status or timing " +
        "(held for calling hours or moved by a change of them, queued when it falls due, put back for a retry after a failed dial).",
    ),
    eventOf(
      "MessageEvent",
      ofPrefix("message"),
      Message,
      "An SMS arrived (`message.received`) or was sent (`message.sent`, when it is stored), its delivery status changed " +
        "(`message.updated`, e.g. delivered or failed), a note was added, or a message was marked read or unread.",
    ),
    eventOf("LeadOrderEvent", ofPrefix("lead_order"), LeadOrder, "A lead order was created, changed, paused, resumed or canceled."),
    eventOf("PathEvent", ofPrefix("path"), Path, "A path was created, changed, published or deleted."),
    eventOf("FieldEvent", ofPrefix("field"), Field, "A custom field was created, changed or archived."),
    eventOf(
      "TeamMemberEvent",
      ["user.created", "user.role_changed", "user.removed"],
      TeamMember,
      "A team member was added by the agency, changed role, or was removed.",
    ),
    eventOf("InviteEvent", ["user.invited"], Invite, "A team member was invited."),
    eventOf(
      "AppEvent",
      ofPrefix("app"),
      ConnectedApp,
      "An app or AI agent was connected through OAuth (`app.authorized`, when it first received its tokens after an owner or " +
        "admin approved it) or its access was revoked (`app.revoked`).",
    ),
    eventOf("PingEvent", ["ping"], PingObject, "A test send (`POST /webhook-endpoints/{webhook_endpoint_uuid}/test`)."),
  ])
  .openapi("Event", { example: exampleEvent });

export const EventResponse = z.object({ success: z.literal(true), event: Event }).openapi("EventResponse", { example: { success: true, event: exampleEvent } });

export const EventListResponse = z
  .object({ success: z.literal(true), events: z.array(Event).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("EventListResponse", { example: { success: true, events: [exampleEvent], pagination: singlePageExample } });

export const EventParams = z.object({ event_uuid: uuidParam("event_uuid") });

// ISO 8601 with an offset; the instant is what counts.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i;
/** Longer than any string INSTANT matches (29 characters), so the length check only cuts off junk early. */
const MAX_INSTANT_QUERY_LENGTH = 40;
const instantQuery = (name: "from" | "to", description: string, example: string) =>
  z
    .string({ error: eventMessages.instant(name) })
    .max(MAX_INSTANT_QUERY_LENGTH, eventMessages.instant(name))
    .regex(INSTANT, eventMessages.instant(name))
    .refine((v) => !Number.isNaN(Date.parse(v)), eventMessages.instant(name))
    .transform((v) => new Date(Date.parse(v)).toISOString())
    .optional()
    // The transform hides the input's bound from the document: state it here.
    .openapi({ param: { name, in: "query" }, type: "string", format: "date-time", maxLength: MAX_INSTANT_QUERY_LENGTH, description, example });

export const ListEventsQuery = paginationQuery
  .extend({
    type: z
      .enum(eventTypes, { error: eventMessages.type })
      .optional()
      .openapi({ param: { name: "type", in: "query" }, description: "Only events of this type.", example: "contact.created" }),
    from: instantQuery("from", "Only events created at or after this instant.", "2026-11-21T00:00:00Z"),
    to: instantQuery("to", "Only events created before this instant.", "2026-11-22T00:00:00Z"),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, { message: eventMessages.range, path: ["from"] });

export const RedeliverResponse = z
  .object({
    success: z.literal(true),
    event_uuid: uuidString(),
    webhook_endpoint_uuids: z
      .array(uuidString())
      .max(MAX_ENDPOINTS_PER_AGENCY)
      .openapi({ description: "The endpoints the event is being delivered to." }),
  })
  .openapi("RedeliverEventResponse", {
    example: { success: true, event_uuid: exampleEvent.event_uuid, webhook_endpoint_uuids: ["e1d2c3b4-a5f6-4e7d-8c9b-0a1f2e3d4c5b"] },
  });

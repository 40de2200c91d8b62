import { jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { EventListResponse, EventParams, EventResponse, ListEventsQuery, RedeliverResponse, eventMessages } from "./events.schemas";
import { SYNC_LOOP_TEXT } from "@/lib/pagination";

const TAGS: ["Events"] = ["Events"];

export const listEvents = partnerRoute({
  method: "get",
  path: "/events",
  operationId: "listEvents",
  tags: TAGS,
  summary: "List events",
  description:
    "Lists the agency's events of the last 30 days, newest first: every change of a contact, appointment, call, " +
    "message, lead order, path, custom field or team member writes one, in the same transaction as the change " +
    "(a change without its event, or an event without its change, cannot happen). Filter with `type` and with " +
    "`from` (inclusive) and `to` (exclusive), ISO 8601 instants. `data.object` is the record as that change left it, " +
    "exactly as its own route returns it. `pagination.total` counts every match. Events older than 30 days are deleted.\n\n" +
    SYNC_LOOP_TEXT,
  scopes: ["webhooks"],
  request: { query: ListEventsQuery },
  errorExamples: { 400: { error: eventMessages.type } },
  responses: { 200: jsonContent(EventListResponse, "One page of events.") },
});

export const getEvent = partnerRoute({
  method: "get",
  path: "/events/{event_uuid}",
  operationId: "getEvent",
  tags: TAGS,
  summary: "Get event",
  description:
    "Returns one event of the last 30 days: `event` is exactly the body POSTed to webhook endpoints, and a " +
    "delivery's `webhook-id` header is its `event_uuid`.",
  scopes: ["webhooks"],
  request: { params: EventParams },
  errorExamples: { 404: { description: "No event with this uuid in your agency (or older than 30 days).", error: eventMessages.notFound } },
  responses: { 200: jsonContent(EventResponse, "The event.") },
});

export const redeliverEvent = partnerRoute({
  method: "post",
  path: "/events/{event_uuid}/redeliver",
  operationId: "redeliverEvent",
  tags: TAGS,
  summary: "Redeliver event",
  description:
    "Delivers the event again, at once, to every enabled webhook endpoint subscribed to its type (whether or not it " +
    "was delivered before): a new delivery with its own attempts and retries, and the same `webhook-id`. Answers 202 " +
    "with the endpoints it goes to (none is fine: the answer says so). A `ping` cannot be redelivered (409): send " +
    "another test instead.",
  scopes: ["webhooks"],
  request: { params: EventParams },
  errors: [409],
  errorExamples: {
    404: { description: "No event with this uuid in your agency (or older than 30 days).", error: eventMessages.notFound },
    409: { description: "The event is a test send.", error: eventMessages.pingRedeliver },
  },
  responses: { 202: jsonContent(RedeliverResponse, "The deliveries are on their way.") },
});

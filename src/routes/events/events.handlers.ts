import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { conflict, notFound } from "@/lib/errors";
import { redeliver } from "@/domain/webhook-endpoints/webhook-endpoints.repository";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/event-feed/events.repository";
import type * as routes from "./events.routes";
import { eventMessages } from "./events.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const listEvents: Handler<"listEvents"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.eventOrder);
  const found = await repo.listEvents(c.var.db, c.var.caller.agencyId, { type: query.type, from: query.from, to: query.to }, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.eventOrder.keysOf);
  return c.json({ success: true as const, events: rows.map(repo.toPublicEvent), pagination }, 200);
};

export const getEvent: Handler<"getEvent"> = async (c) => {
  const event = await repo.getEvent(c.var.db, c.var.caller.agencyId, c.req.valid("param").event_uuid);
  if (!event) throw notFound(eventMessages.notFound);
  return c.json({ success: true as const, event: repo.toPublicEvent(event) }, 200);
};

export const redeliverEvent: Handler<"redeliverEvent"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const event = await repo.getEvent(db, agencyId, c.req.valid("param").event_uuid);
  if (!event) throw notFound(eventMessages.notFound);
  if (event.type === "ping") throw conflict(eventMessages.pingRedeliver);
  const endpointIds = await redeliver(db, agencyId, event.id, event.type);
  return c.json({ success: true as const, event_uuid: event.id, webhook_endpoint_uuids: endpointIds }, 202);
};

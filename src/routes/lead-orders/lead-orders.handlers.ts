import type { RouteHandler } from "@hono/zod-openapi";
import type { Db } from "@/db/client";
import type { AppBindings } from "@/lib/context";
import { conflict, notFound } from "@/lib/errors";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/lead-orders/lead-orders.repository";
import type * as routes from "./lead-orders.routes";
import { leadOrderMessages } from "./lead-orders.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const orderBody = (row: repo.LeadOrderRow) => ({ success: true as const, lead_order: repo.toPublicLeadOrder(row) });

/** A conditional write changed nothing: say whether the order is missing (404) or canceled (409). */
async function existingOrFail(db: Db, agencyId: string, orderId: string, canceledMessage: string) {
  const current = await repo.getLeadOrder(db, agencyId, orderId);
  if (!current) throw notFound(leadOrderMessages.notFound);
  if (current.status === "canceled") throw conflict(canceledMessage);
  return current;
}

export const listLeadOrders: Handler<"listLeadOrders"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.leadOrderOrder);
  const found = await repo.listLeadOrders(c.var.db, c.var.caller.agencyId, { status: query.status }, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.leadOrderOrder.keysOf);
  return c.json({ success: true as const, lead_orders: rows.map(repo.toPublicLeadOrder), pagination }, 200);
};

export const getLeadOrder: Handler<"getLeadOrder"> = async (c) => {
  const order = await repo.getLeadOrder(c.var.db, c.var.caller.agencyId, c.req.valid("param").order_uuid);
  if (!order) throw notFound(leadOrderMessages.notFound);
  return c.json(orderBody(order), 200);
};

export const updateLeadOrder: Handler<"updateLeadOrder"> = async (c) => {
  const { order_uuid } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  if (body.name === undefined && body.daily_max === undefined && body.states === undefined) {
    return c.json(orderBody(await existingOrFail(db, agencyId, order_uuid, leadOrderMessages.canceled)), 200);
  }
  const updated = await repo.updateLeadOrder(db, agencyId, order_uuid, { name: body.name, dailyMax: body.daily_max, states: body.states });
  if (updated) return c.json(orderBody(updated), 200);
  // The conditional update only misses a missing or canceled order, and canceled is final.
  await existingOrFail(db, agencyId, order_uuid, leadOrderMessages.canceled);
  throw conflict(leadOrderMessages.canceled);
};

export const pauseLeadOrder: Handler<"pauseLeadOrder"> = async (c) => {
  const { order_uuid } = c.req.valid("param");
  const { paused } = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  // Nothing changed means: missing (404), canceled (409), or already in the asked status (an
  // idempotent 200). A concurrent toggle in between the two statements is retried.
  for (let attempt = 0; attempt < 3; attempt++) {
    const changed = await repo.setPaused(db, agencyId, order_uuid, paused);
    if (changed) return c.json(orderBody(changed), 200);
    const current = await existingOrFail(db, agencyId, order_uuid, leadOrderMessages.canceled);
    if (current.status === (paused ? "paused" : "active")) return c.json(orderBody(current), 200);
  }
  throw conflict(leadOrderMessages.changedConcurrently);
};

export const cancelLeadOrder: Handler<"cancelLeadOrder"> = async (c) => {
  const { order_uuid } = c.req.valid("param");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const canceled = await repo.cancelLeadOrder(db, agencyId, order_uuid);
  if (canceled) return c.json(orderBody(canceled), 200);
  await existingOrFail(db, agencyId, order_uuid, leadOrderMessages.alreadyCanceled);
  throw conflict(leadOrderMessages.alreadyCanceled);
};

import { and, count, eq, ne, type SQL } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { leadOrders } from "@/db/schema";
import { eventStatement, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

export type LeadOrderRow = typeof leadOrders.$inferSelect;
export type LeadOrderStatus = LeadOrderRow["status"];

export const toPublicLeadOrder = (o: LeadOrderRow) => ({
  order_uuid: o.id,
  name: o.name,
  status: o.status,
  daily_max: o.dailyMax,
  states: o.states,
  delivered_count: o.deliveredCount,
  created_at: o.createdAt,
  updated_at: o.updatedAt,
  canceled_at: o.canceledAt,
});

const ofAgency = (agencyId: string, orderId: string) => and(eq(leadOrders.id, orderId.toLowerCase()), eq(leadOrders.agencyId, agencyId));
const notCanceled = ne(leadOrders.status, "canceled");

/** The event of a change to one order, for the change's batch (see eventStatement). */
const leadOrderEvent = (db: Db, agencyId: string, orderId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "lead_order", table: leadOrders, where: ofAgency(agencyId, orderId), ...options });

/** A conditional change of one order (`where`), with its event; the order afterwards, undefined when `where` missed. */
const updateOrder = (db: Db, agencyId: string, orderId: string, type: EventType, set: SQLiteUpdateSetSource<typeof leadOrders>, where: SQL) =>
  writeWithEvent(
    db,
    db.update(leadOrders).set(set).where(and(ofAgency(agencyId, orderId), where)).returning(),
    leadOrderEvent(db, agencyId, orderId, type, { ifChanged: true }),
  );

export const getLeadOrder = (db: Db, agencyId: string, orderId: string) =>
  db.select().from(leadOrders).where(ofAgency(agencyId, orderId)).get();

export const leadOrderOrder = listOrder("desc", { createdAt: leadOrders.createdAt, id: leadOrders.id });

export function listLeadOrders(db: Db, agencyId: string, filters: { status?: LeadOrderStatus }, page: PageWindow) {
  const where = and(eq(leadOrders.agencyId, agencyId), filters.status ? eq(leadOrders.status, filters.status) : undefined);
  return readListPage(
    db,
    page,
    db.select().from(leadOrders).where(leadOrderOrder.where(page, where)).orderBy(...leadOrderOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(leadOrders).where(where),
  );
}

/** Operator only: orders are bought in the dashboard, never created through the Partner API. */
export async function createLeadOrder(db: Db, agencyId: string, input: { name: string; dailyMax: number; states: string[] }) {
  const now = nowIso();
  const row: LeadOrderRow = {
    id: newId(),
    agencyId,
    ...input,
    status: "active",
    deliveredCount: 0,
    createdAt: now,
    updatedAt: now,
    canceledAt: null,
  };
  await commit(db, [db.insert(leadOrders).values(row), leadOrderEvent(db, agencyId, row.id, "lead_order.created")]);
  return row;
}

/**
 * The writes below are conditional on the order not being canceled (`WHERE status <> 'canceled'`)
 * and return the changed row; undefined means "missing or canceled", which the caller tells
 * apart by reading the order again. So a cancel racing a patch or pause can never be undone.
 */
export const updateLeadOrder = (db: Db, agencyId: string, orderId: string, patch: { name?: string; dailyMax?: number; states?: string[] }) =>
  updateOrder(db, agencyId, orderId, "lead_order.updated", { ...patch, updatedAt: nowIso() }, notCanceled);

/**
 * Pauses an active order or resumes a paused one. undefined when the order was not in the
 * opposite status: missing, canceled, or already paused/active (an idempotent repeat, which
 * changes nothing, not even updated_at).
 */
export const setPaused = (db: Db, agencyId: string, orderId: string, paused: boolean) =>
  updateOrder(
    db,
    agencyId,
    orderId,
    paused ? "lead_order.paused" : "lead_order.resumed",
    { status: paused ? "paused" : "active", updatedAt: nowIso() },
    eq(leadOrders.status, paused ? "active" : "paused"),
  );

export async function cancelLeadOrder(db: Db, agencyId: string, orderId: string) {
  const now = nowIso();
  return updateOrder(db, agencyId, orderId, "lead_order.canceled", { status: "canceled", canceledAt: now, updatedAt: now }, notCanceled);
}

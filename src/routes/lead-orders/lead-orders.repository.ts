import { and, count, desc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { leadOrders } from "@/db/schema";
import { newId } from "@/lib/ids";
import { offsetOf, type Pagination } from "@/lib/pagination";
import { nowIso } from "@/lib/time";

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

export const getLeadOrder = (db: Db, agencyId: string, orderId: string) =>
  db.select().from(leadOrders).where(ofAgency(agencyId, orderId)).get();

export async function listLeadOrders(db: Db, agencyId: string, filters: { status?: LeadOrderStatus }, page: Pagination) {
  const where = and(eq(leadOrders.agencyId, agencyId), filters.status ? eq(leadOrders.status, filters.status) : undefined);
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(leadOrders)
      .where(where)
      // Newest first; rowid breaks ties between orders created in the same millisecond.
      .orderBy(desc(leadOrders.createdAt), desc(sql`${leadOrders}.rowid`))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ total: count() }).from(leadOrders).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
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
  await db.insert(leadOrders).values(row);
  return row;
}

/**
 * The writes below are conditional on the order not being canceled (`WHERE status <> 'canceled'`)
 * and return the changed row; undefined means "missing or canceled", which the caller tells
 * apart by reading the order again. So a cancel racing a patch or pause can never be undone.
 */
export const updateLeadOrder = (db: Db, agencyId: string, orderId: string, patch: { name?: string; dailyMax?: number; states?: string[] }) =>
  db
    .update(leadOrders)
    .set({ ...patch, updatedAt: nowIso() })
    .where(and(ofAgency(agencyId, orderId), notCanceled))
    .returning()
    .get();

/**
 * Pauses an active order or resumes a paused one. undefined when the order was not in the
 * opposite status: missing, canceled, or already paused/active (an idempotent repeat, which
 * changes nothing, not even updated_at).
 */
export const setPaused = (db: Db, agencyId: string, orderId: string, paused: boolean) =>
  db
    .update(leadOrders)
    .set({ status: paused ? "paused" : "active", updatedAt: nowIso() })
    .where(and(ofAgency(agencyId, orderId), eq(leadOrders.status, paused ? "active" : "paused")))
    .returning()
    .get();

export async function cancelLeadOrder(db: Db, agencyId: string, orderId: string) {
  const now = nowIso();
  return db
    .update(leadOrders)
    .set({ status: "canceled", canceledAt: now, updatedAt: now })
    .where(and(ofAgency(agencyId, orderId), notCanceled))
    .returning()
    .get();
}

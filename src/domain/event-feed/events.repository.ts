import { and, count, eq, gte, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { events } from "@/db/schema";
import type { EventType } from "@/domain/events/events";
import { EVENT_RETENTION_MS } from "@/lib/webhooks/webhook-message";
import { renderObject } from "./event-objects";

export type EventRow = typeof events.$inferSelect;

/** An event as the API and webhooks show it. */
export interface PublicEvent {
  event_uuid: string;
  type: EventType;
  created_at: string;
  data: { object: object | null };
}

/**
 * An event as the API shows it: `data.object` rendered from its snapshot by the resource's own
 * mapper (which the `Event` schema's per-type objects describe).
 */
export const toPublicEvent = (e: EventRow): PublicEvent => ({
  event_uuid: e.id,
  type: e.type as EventType,
  created_at: e.createdAt,
  data: { object: renderObject(e.objectType, e.snapshot) },
});

/** Events are kept 30 days: older ones are gone for the API even before the cron deletes them. */
const retained = () => gte(events.createdAt, new Date(Date.now() - EVENT_RETENTION_MS).toISOString());

export const getEvent = (db: Db, agencyId: string, eventId: string) =>
  db
    .select()
    .from(events)
    .where(and(eq(events.id, eventId.toLowerCase()), eq(events.agencyId, agencyId), retained()))
    .get();

export interface EventFilters {
  type?: EventType;
  from?: string;
  to?: string;
}

export const eventOrder = listOrder("desc", { createdAt: events.createdAt, id: events.id });

/** Newest first, through `(agency, created_at)` or `(agency, type, created_at)`. */
export function listEvents(db: Db, agencyId: string, filters: EventFilters, page: PageWindow) {
  const where = and(
    eq(events.agencyId, agencyId),
    retained(),
    filters.type ? eq(events.type, filters.type) : undefined,
    filters.from ? gte(events.createdAt, filters.from) : undefined,
    filters.to ? lt(events.createdAt, filters.to) : undefined,
  );
  return readListPage(
    db,
    page,
    db.select().from(events).where(eventOrder.where(page, where)).orderBy(...eventOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(events).where(where),
  );
}

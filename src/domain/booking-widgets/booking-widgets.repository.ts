import { and, count, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { bookingWidgets, members } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type BookingWidgetRow = typeof bookingWidgets.$inferSelect;

/** A widget with what its activity depends on besides its own flag: whether its team member was removed. */
export type BookingWidgetRecord = BookingWidgetRow & { memberRemoved: boolean };

/** Only an active widget of a member still in the agency accepts bookings. */
export const isActive = (w: BookingWidgetRecord) => w.active && !w.memberRemoved;

export const toPublicBookingWidget = (w: BookingWidgetRecord) => ({
  booking_widget_uuid: w.id,
  name: w.name,
  agent_uuid: w.memberId,
  duration_minutes: w.durationMinutes,
  active: isActive(w),
  created_at: w.createdAt,
});

/**
 * Widgets with their member's removal read through a join at every read, not stored on the
 * widget, so a widget is inactive from the moment its member is removed (and no removal path
 * has to remember to update widgets).
 */
const withMember = (db: Db) =>
  db
    .select({
      ...getTableColumns(bookingWidgets),
      memberRemoved: sql<boolean>`${members.removedAt} IS NOT NULL`.mapWith(Boolean),
    })
    .from(bookingWidgets)
    .leftJoin(members, and(eq(members.id, bookingWidgets.memberId), eq(members.agencyId, bookingWidgets.agencyId)));

export const getBookingWidget = (db: Db, agencyId: string, widgetId: string): Promise<BookingWidgetRecord | undefined> =>
  withMember(db)
    .where(and(eq(bookingWidgets.id, widgetId.toLowerCase()), eq(bookingWidgets.agencyId, agencyId)))
    .get();

export const widgetOrder = listOrder("desc", { createdAt: bookingWidgets.createdAt, id: bookingWidgets.id });

export function listBookingWidgets(db: Db, agencyId: string, page: PageWindow) {
  const where = eq(bookingWidgets.agencyId, agencyId);
  return readListPage(
    db,
    page,
    withMember(db).where(widgetOrder.where(page, where)).orderBy(...widgetOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(bookingWidgets).where(where),
  );
}

/** Creates an active widget; its member (if any) was just checked to be in the agency. */
export async function createBookingWidget(
  db: Db,
  agencyId: string,
  input: { name: string; memberId: string | null; durationMinutes: number },
): Promise<BookingWidgetRecord> {
  const now = nowIso();
  const row: BookingWidgetRow = { id: newId(), agencyId, ...input, active: true, createdAt: now, updatedAt: now };
  await db.insert(bookingWidgets).values(row);
  return { ...row, memberRemoved: false };
}

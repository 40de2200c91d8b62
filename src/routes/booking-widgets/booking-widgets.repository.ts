import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { bookingWidgets } from "@/db/schema";
import { newId } from "@/lib/ids";
import { offsetOf, type Pagination } from "@/lib/pagination";
import { nowIso } from "@/lib/time";

export type BookingWidgetRow = typeof bookingWidgets.$inferSelect;

export const toPublicBookingWidget = (w: BookingWidgetRow) => ({
  booking_widget_uuid: w.id,
  name: w.name,
  agent_uuid: w.memberId,
  duration_minutes: w.durationMinutes,
  active: w.active,
  created_at: w.createdAt,
});

export const getBookingWidget = (db: Db, agencyId: string, widgetId: string) =>
  db
    .select()
    .from(bookingWidgets)
    .where(and(eq(bookingWidgets.id, widgetId.toLowerCase()), eq(bookingWidgets.agencyId, agencyId)))
    .get();

export async function listBookingWidgets(db: Db, agencyId: string, page: Pagination) {
  const where = eq(bookingWidgets.agencyId, agencyId);
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(bookingWidgets)
      .where(where)
      // Newest first; rowid breaks ties between widgets created in the same millisecond.
      .orderBy(desc(bookingWidgets.createdAt), desc(sql`${bookingWidgets}.rowid`))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ total: count() }).from(bookingWidgets).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

export async function createBookingWidget(
  db: Db,
  agencyId: string,
  input: { name: string; memberId: string | null; durationMinutes: number },
) {
  const now = nowIso();
  const row: BookingWidgetRow = { id: newId(), agencyId, ...input, active: true, createdAt: now, updatedAt: now };
  await db.insert(bookingWidgets).values(row);
  return row;
}

import { and, count, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencies, pathEvents, paths } from "@/db/schema";

export const getAgencyTimezone = async (db: Db, agencyId: string) =>
  (await db.select({ timezone: agencies.timezone }).from(agencies).where(eq(agencies.id, agencyId)).get())?.timezone ?? "UTC";

/** Event counts by path, step and type over [start, end): one indexed GROUP BY. */
export const countPathEvents = (db: Db, agencyId: string, range: { start: string; end: string }, pathId?: string) =>
  db
    .select({ pathId: pathEvents.pathId, step: pathEvents.step, type: pathEvents.type, count: count() })
    .from(pathEvents)
    .where(
      and(
        eq(pathEvents.agencyId, agencyId),
        pathId ? eq(pathEvents.pathId, pathId) : undefined,
        gte(pathEvents.occurredAt, range.start),
        lt(pathEvents.occurredAt, range.end),
      ),
    )
    .groupBy(pathEvents.pathId, pathEvents.step, pathEvents.type)
    .all();

/** The agency's paths (or one), archived included, newest first. */
export const listPathsForReport = (db: Db, agencyId: string, pathId?: string) =>
  db
    .select()
    .from(paths)
    .where(and(eq(paths.agencyId, agencyId), pathId ? eq(paths.id, pathId) : undefined))
    .orderBy(desc(paths.createdAt), desc(sql`${paths}.rowid`))
    .all();

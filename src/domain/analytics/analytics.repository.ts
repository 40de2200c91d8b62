import { and, count, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencyTimezoneQuery, timezoneOf } from "@/db/agency-timezone";
import { pathEvents, paths } from "@/db/schema";
import { commit } from "@/db/outbox";

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
const pathsForReportQuery = (db: Db, agencyId: string, pathId?: string) =>
  db
    .select()
    .from(paths)
    .where(and(eq(paths.agencyId, agencyId), pathId ? eq(paths.id, pathId.toLowerCase()) : undefined))
    .orderBy(desc(paths.createdAt), desc(sql`${paths}.rowid`));

/**
 * What the report needs before its events, in one D1 round trip (one batch): the agency's
 * timezone (the events' range depends on it) and its paths, or the one path asked for
 * (archived included; none means the path is unknown to this agency).
 */
export async function readReportSetup(db: Db, agencyId: string, pathId?: string) {
  const [agency, rows] = await commit(db, [agencyTimezoneQuery(db, agencyId), pathsForReportQuery(db, agencyId, pathId)]);
  return { timezone: timezoneOf(agency), paths: rows };
}

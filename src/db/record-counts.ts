import { and, eq, sql } from "drizzle-orm";
import type { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { totalFrom } from "@/db/compiled-query";
import { recordCounts, type CountKind } from "@/db/schema";

/**
 * The maintained number of an agency's records of one kind, shaped like a COUNT query
 * (`[{ total }]`) so it can stand in one inside a `db.batch`. No row yet means zero.
 */
export const countQuery = (db: Db, agencyId: string, kind: CountKind) =>
  db
    .select({ total: recordCounts.count })
    .from(recordCounts)
    .where(and(eq(recordCounts.agencyId, agencyId), eq(recordCounts.kind, kind)));

/** The same for a compiled query (src/db/compiled-query.ts): the agency is its `agencyId` placeholder. */
export const maintainedCount = (qb: QueryBuilder, kind: CountKind) =>
  qb
    .select({ total: totalFrom(recordCounts.count) })
    .from(recordCounts)
    .where(and(eq(recordCounts.agencyId, sql.placeholder("agencyId")), eq(recordCounts.kind, kind)));

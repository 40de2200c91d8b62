import { and, eq, sql } from "drizzle-orm";
import type { QueryBuilder } from "drizzle-orm/sqlite-core";
import { totalFrom } from "@/db/compiled-query";
import { recordCounts, type CountKind } from "@/db/schema";

/**
 * The maintained number of an agency's records of one kind, for a compiled query
 * (src/db/compiled-query.ts; the agency is its `agencyId` placeholder), shaped like a COUNT
 * (`[{ total }]`) so it stands in for one beside a page in a batch. No row yet means zero.
 */
export const maintainedCount = (qb: QueryBuilder, kind: CountKind) =>
  qb
    .select({ total: totalFrom(recordCounts.count) })
    .from(recordCounts)
    .where(and(eq(recordCounts.agencyId, sql.placeholder("agencyId")), eq(recordCounts.kind, kind)));

import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
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

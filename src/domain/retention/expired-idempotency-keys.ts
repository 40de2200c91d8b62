import { and, lt, sql } from "drizzle-orm";
import { notFrozen } from "@/db/agency-copy";
import type { Db } from "@/db/client";
import { idempotencyKeys } from "@/db/schema";
import { isoAt } from "@/lib/time";

/** Expired idempotency keys deleted per shard and run (their index is by expiry). */
const IDEMPOTENCY_PRUNE_LIMIT = 500;

/**
 * Deletes idempotency keys past their 24 hours (a retry after that is a new request anyway),
 * but those of an agency that is moving. Returns how many went.
 */
export async function pruneExpiredIdempotencyKeys(db: Db, now: number) {
  const expired = and(lt(idempotencyKeys.expiresAt, isoAt(now)), notFrozen(idempotencyKeys.agencyId));
  const deleted = await db
    .delete(idempotencyKeys)
    .where(sql`rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE ${expired} LIMIT ${IDEMPOTENCY_PRUNE_LIMIT})`)
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}

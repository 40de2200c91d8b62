import { and, eq, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { commit } from "@/db/outbox";
import { idempotencyKeys } from "@/db/schema";
import { addDays } from "@/lib/time";

/**
 * Idempotency keys, per agency and key (the Idempotency-Key middleware's records,
 * src/middleware/idempotency.ts). A key is claimed by an INSERT that either wins or conflicts,
 * so two identical requests sent at once cannot both run.
 */

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

const ofKey = (agencyId: string, key: string) => and(eq(idempotencyKeys.agencyId, agencyId), eq(idempotencyKeys.key, key));

/**
 * Claims the key for a request, valid a day from `now`. `claimed` is false when another request
 * holds it; `held` is then its record (undefined if none could be read).
 */
export async function claimIdempotencyKey(
  db: Db,
  agencyId: string,
  key: string,
  requestHash: string,
  now: Date,
): Promise<{ claimed: boolean; held: IdempotencyRecord | undefined }> {
  const where = ofKey(agencyId, key);
  // One round trip: clear an expired record (it no longer counts), try the claim, and read
  // whatever holds the key now. A batch runs as one transaction, in this order.
  const [, claimed, held] = await commit(db, [
    db.delete(idempotencyKeys).where(and(where, lt(idempotencyKeys.expiresAt, now.toISOString()))),
    db
      .insert(idempotencyKeys)
      .values({ agencyId, key, requestHash, state: "in_progress", createdAt: now.toISOString(), expiresAt: addDays(now, 1).toISOString() })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key }),
    db.select().from(idempotencyKeys).where(where),
  ]);
  return { claimed: claimed.length > 0, held: held[0] };
}

/** Gives the key up, so the client can retry (its request failed). */
export const releaseIdempotencyKey = (db: Db, agencyId: string, key: string) => db.delete(idempotencyKeys).where(ofKey(agencyId, key));

/** Keeps the response of the request that claimed the key, for replays. */
export const storeIdempotentResponse = (db: Db, agencyId: string, key: string, status: number, body: string) =>
  db.update(idempotencyKeys).set({ state: "done", responseStatus: status, responseBody: body }).where(ofKey(agencyId, key));

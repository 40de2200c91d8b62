import { and, eq, lt } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { idempotencyKeys } from "@/db/schema";
import type { AppBindings } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import { ApiError, badRequest, messages } from "@/lib/errors";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@/lib/request-headers";
import { addDays } from "@/lib/time";
import { commit } from "@/db/outbox";


/**
 * Idempotency-Key with Stripe's semantics, per agency and key. The claim is an INSERT that
 * either wins or conflicts, so two identical requests sent at once cannot both run: the
 * second sees `in_progress` (409) or, once the first is done, its stored response.
 * A 5xx or an exception releases the key so the client can retry.
 */
export const idempotency: MiddlewareHandler<AppBindings> = async (c, next) => {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined) return next();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw badRequest(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }

  const { agencyId } = c.var.caller;
  const db = c.var.db;
  // Hash the raw bytes (not text): any body, JSON or not, must match exactly to be replayed.
  const body = new Uint8Array(await c.req.arrayBuffer());
  const requestHash = await sha256Hex(`${c.req.method} ${c.req.path}\n`, body);
  const now = new Date();
  const where = and(eq(idempotencyKeys.agencyId, agencyId), eq(idempotencyKeys.key, key));

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

  if (claimed.length === 0) {
    const stored = held[0];
    if (stored && stored.requestHash !== requestHash) {
      throw new ApiError("idempotency_key_mismatch", messages.idempotencyMismatch);
    }
    if (!stored || stored.state !== "done" || stored.responseStatus === null) {
      throw new ApiError("idempotency_in_progress", messages.idempotencyInProgress);
    }
    c.header("Idempotent-Replayed", "true");
    return c.body(stored.responseBody ?? "", stored.responseStatus as 200, { "Content-Type": "application/json" });
  }

  let status = 500;
  try {
    await next();
    status = c.res.status;
  } finally {
    if (status >= 500) {
      await db.delete(idempotencyKeys).where(where);
    } else {
      await db
        .update(idempotencyKeys)
        .set({ state: "done", responseStatus: status, responseBody: await c.res.clone().text() })
        .where(where);
    }
  }
};

import type { MiddlewareHandler } from "hono";
import { claimIdempotencyKey, releaseIdempotencyKey, storeIdempotentResponse } from "@/domain/idempotency/idempotency.repository";
import type { AppBindings } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import { ApiError, badRequest, messages } from "@/lib/errors";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@/lib/request-headers";

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
  const { claimed, held: stored } = await claimIdempotencyKey(db, agencyId, key, requestHash, new Date());

  if (!claimed) {
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
      await releaseIdempotencyKey(db, agencyId, key);
    } else {
      await storeIdempotentResponse(db, agencyId, key, status, await c.res.clone().text());
    }
  }
};

import type { MiddlewareHandler } from "hono";
import { keyGate } from "@/lib/auth/gate";
import type { Scope } from "@/lib/auth/scopes";
import { bearerToken, hashToken, keyIdOf } from "@/lib/auth/tokens";
import type { AppBindings } from "@/lib/context";
import { ApiError, invalidToken, messages } from "@/lib/errors";
import type { RateLimitRule } from "@/lib/rate-limits";
import { agencyMovingError } from "@/lib/shards/agency-moving";
import { applyRateLimitDecision, enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";

/**
 * The front door of every Partner API route, in SPEC order: authenticate, count the request
 * against its rate limit, then check the scope. For a well-formed token all three are one
 * call to the key's AccessGate; a request without key identity (no token, a token not of our
 * shape, or one the gate rejects) is counted against the client IP. `scopes: "none"` marks
 * the unauthenticated routes, limited per IP.
 */
export function guard(options: {
  scopes: readonly Scope[] | "none";
  rateLimit: RateLimitRule;
  /** Whether the request writes (refused while its agency moves); by default, every method but GET and HEAD. */
  write?: boolean;
}): MiddlewareHandler<AppBindings> {
  const { scopes, rateLimit } = options;
  return async (c, next) => {
    if (scopes === "none") {
      await enforceIpRateLimit(c, rateLimit);
      return next();
    }
    const token = bearerToken(c.req.header("Authorization"));
    const keyId = token ? keyIdOf(token, c.env) : null;
    if (!token || !keyId) {
      await enforceIpRateLimit(c, rateLimit);
      throw invalidToken();
    }

    const admission = await keyGate(c.env, keyId).admit({
      keyId,
      tokenHash: await hashToken(token, c.env),
      bucket: rateLimit.bucket,
      limit: rateLimit.limit,
      windowSeconds: rateLimit.windowSeconds,
      scopes,
      write: options.write ?? (c.req.method !== "GET" && c.req.method !== "HEAD"),
    });
    if (!("decision" in admission)) {
      await enforceIpRateLimit(c, rateLimit);
      throw admission.outcome === "expired" ? new ApiError("token_expired", messages.tokenExpired) : invalidToken();
    }
    // Counted either way; throws 429 when the limit is used up.
    applyRateLimitDecision(c, rateLimit, admission.decision);
    if (admission.outcome === "moving") throw agencyMovingError();
    if (!("caller" in admission)) throw new ApiError("insufficient_scope", messages.missingScope(scopes[0] ?? "*"));
    c.set("caller", admission.caller);
    useShard(c, admission.caller.shard);
    return next();
  };
}

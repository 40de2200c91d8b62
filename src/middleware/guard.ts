import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import { hasAnyScope, type Scope } from "@/lib/auth/scopes";
import type { RateLimitRule } from "@/lib/rate-limits";
import { authenticate } from "@/middleware/authenticate";
import { clientIp, enforceRateLimit } from "@/middleware/rate-limit";

/**
 * The front door of every Partner API route, in SPEC order: authenticate, count the
 * request against its rate limit (per key, or per IP when the token is bad), then check
 * the scope. `scopes: "none"` marks the unauthenticated routes, limited per IP.
 */
export function guard(options: { scopes: readonly Scope[] | "none"; rateLimit: RateLimitRule }): MiddlewareHandler<AppBindings> {
  const { scopes, rateLimit } = options;
  return async (c, next) => {
    if (scopes === "none") {
      await enforceRateLimit(c, rateLimit, `ip:${clientIp(c)}`);
      return next();
    }
    const auth = await authenticate(c);
    if ("failure" in auth) {
      await enforceRateLimit(c, rateLimit, `ip:${clientIp(c)}`);
      throw auth.failure;
    }
    const { caller } = auth;
    c.set("caller", caller);
    c.var.logger.debug("authenticated", { key_id: caller.keyId });
    await enforceRateLimit(c, rateLimit, `key:${caller.keyId}`, caller.rateLimitMultiplier);
    if (!hasAnyScope(caller.scopes, scopes)) {
      throw new ApiError("insufficient_scope", messages.missingScope(scopes[0] ?? "*"));
    }
    return next();
  };
}

import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "@/lib/context";
import { ipGate } from "@/lib/auth/gate";
import { bearerToken } from "@/lib/auth/tokens";
import { ApiError, invalidToken, messages } from "@/lib/errors";
import { OPERATOR_AUTH_FAILURES } from "@/lib/rate-limits";
import { applyRateLimitDecision, clientIp } from "@/middleware/rate-limit";

/**
 * The operator API exists only where ADMIN_TOKEN is configured: without it every /admin
 * path is a plain 404, so a deployment that forgot the secret exposes nothing.
 *
 * The token is decided by the client IP's AccessGate, which also counts failures: one call
 * either way, and an IP out of failures is refused 429 before its token is looked at, so a
 * right guess cannot stand out among the refusals.
 */
export const adminAuth: MiddlewareHandler<AppBindings> = async (c, next) => {
  if (!c.env.ADMIN_TOKEN) throw new ApiError("not_found", messages.routeNotFound);
  const rule = OPERATOR_AUTH_FAILURES;
  const admission = await ipGate(c.env, clientIp(c)).admitOperator({
    token: bearerToken(c.req.header("Authorization")),
    bucket: rule.bucket,
    limit: rule.limit,
    windowSeconds: rule.windowSeconds,
  });
  if (admission.outcome !== "admitted") {
    // Throws 429 when refused; a counted failure only sets the RateLimit headers.
    applyRateLimitDecision(c, rule, admission.decision);
    throw invalidToken();
  }
  await next();
};

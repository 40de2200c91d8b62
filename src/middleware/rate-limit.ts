import type { Context } from "hono";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import { effectiveLimit, type RateLimitRule } from "@/lib/rate-limits";

export const clientIp = (c: Context<AppBindings>) => c.req.header("CF-Connecting-IP") ?? "unknown";

/**
 * Counts this request against `rule` for `identity` (a key id, or `ip:<address>`), sets the
 * RateLimit headers, and throws 429 with Retry-After when the limit is used up.
 */
export async function enforceRateLimit(
  c: Context<AppBindings>,
  rule: RateLimitRule,
  identity: string,
  multiplier = 1,
): Promise<void> {
  const limit = effectiveLimit(rule.limit, multiplier);
  const stub = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(identity));
  const decision = await stub.consume(rule.bucket, limit, rule.windowSeconds);
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
    "RateLimit-Policy": `${decision.limit};w=${rule.windowSeconds}`,
  };
  if (!decision.allowed) {
    throw new ApiError("rate_limited", messages.rateLimited, {
      headers: { ...headers, "Retry-After": String(decision.resetSeconds) },
    });
  }
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}

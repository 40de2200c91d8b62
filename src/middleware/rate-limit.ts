import type { Context } from "hono";
import type { RateLimitDecision } from "@/lib/auth/gate-protocol";
import { ipGate } from "@/lib/auth/gate";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import type { RateLimitRule } from "@/lib/rate-limits";

export const clientIp = (c: Context<AppBindings>) => c.req.header("CF-Connecting-IP") ?? "unknown";

/** Sets the RateLimit headers of a decision; throws 429 with Retry-After when it refused. */
export function applyRateLimitDecision(c: Context<AppBindings>, rule: RateLimitRule, decision: RateLimitDecision): void {
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

/** Counts a request without key identity (renewal, bad tokens, the consent page) against the client IP. */
export async function enforceIpRateLimit<E extends AppBindings>(context: Context<E>, rule: RateLimitRule): Promise<void> {
  // Every app's variables extend AppBindings' (the dashboard adds its session and form).
  const c = context as unknown as Context<AppBindings>;
  const decision = await ipGate(c.env, clientIp(c)).consume(rule.bucket, rule.limit, rule.windowSeconds);
  applyRateLimitDecision(c, rule, decision);
}

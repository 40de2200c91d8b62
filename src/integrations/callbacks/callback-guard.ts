import type { Context } from "hono";
import type { AppBindings } from "@/lib/context";
import type { ApiError } from "@/lib/errors";
import { rateLimitRule } from "@/lib/rate-limits";
import { enforceIpRateLimit } from "@/middleware/rate-limit";

/**
 * The refusal of a provider callback that failed its provider's check (a bad or missing signature
 * or secret, or a deployment without that provider): counted against the client IP's limit of
 * such requests (429 once it is used up, so unsigned floods are throttled), and `refusal`
 * otherwise. A callback that passes the check never reaches this: providers share their
 * addresses across customers and do not retry a refused callback, so no per-IP limit may refuse
 * a genuine one (docs/decisions/real-providers.md).
 */
export async function refuseUnverified(c: Context<AppBindings>, path: string, refusal: ApiError): Promise<never> {
  await enforceIpRateLimit(c, rateLimitRule("POST", path, "ip"));
  throw refusal;
}

import type { Context } from "hono";
import type { AgencyLocation } from "@/db/shards";
import { acceptCallback } from "@/domain/provider-callbacks/accept-callback";
import type { ProviderCallback } from "@/domain/provider-callbacks/provider-callback";
import type { AppBindings } from "@/lib/context";
import type { ApiError } from "@/lib/errors";
import { rateLimitRule } from "@/lib/rate-limits";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";

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

/**
 * Applies a verified callback on its agency's shard (in the request's shard session), or queues
 * it while the agency moves: the one way Twilio's and Vapi's callbacks reach the domain.
 */
export const acceptVerified = (c: Context<AppBindings>, location: Pick<AgencyLocation, "shard" | "movingTo">, callback: ProviderCallback) =>
  acceptCallback({ dbOf: (shard) => useShard(c, shard, "primary"), queue: c.env.CALLBACK_QUEUE, logger: c.var.logger }, location, callback);

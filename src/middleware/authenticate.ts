import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { apiKeys } from "@/db/schema";
import type { AppBindings, Caller } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import { bearerToken, hashToken } from "@/lib/auth/tokens";

export type Authentication = { caller: Caller } | { failure: ApiError };

/**
 * Resolves the bearer token to its key. Failures are returned, not thrown, so the guard
 * can count them against the client IP's rate limit before answering 401.
 */
export async function authenticate(c: Context<AppBindings>): Promise<Authentication> {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) return { failure: new ApiError("invalid_token", messages.invalidToken) };

  const hash = await hashToken(token, c.env);
  const key = await c.var.db
    .select({
      id: apiKeys.id,
      agencyId: apiKeys.agencyId,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      rateLimitMultiplier: apiKeys.rateLimitMultiplier,
    })
    .from(apiKeys)
    .where(eq(apiKeys.accessHash, hash))
    .get();

  if (!key || key.revokedAt) return { failure: new ApiError("invalid_token", messages.invalidToken) };
  if (key.expiresAt && key.expiresAt <= new Date().toISOString()) {
    return { failure: new ApiError("token_expired", messages.tokenExpired) };
  }
  return {
    caller: {
      keyId: key.id,
      agencyId: key.agencyId,
      scopes: key.scopes,
      rateLimitMultiplier: key.rateLimitMultiplier,
    },
  };
}

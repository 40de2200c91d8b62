import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import { renewApiKey } from "@/domain/auth/api-keys.repository";
import { keyIdOf } from "@/lib/auth/tokens";
import { recordLocation } from "@/db/shards";
import { clientIp } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";
import type { renewToken as renewTokenRoute } from "./auth.routes";

export const renewToken: RouteHandler<typeof renewTokenRoute, AppBindings> = async (c) => {
  const { access_token, rotate_key } = c.req.valid("json");
  // The access token names its key, and the directory the key's shard; an expired token still does.
  const keyId = keyIdOf(access_token, c.env);
  const location = keyId ? await recordLocation(c.env, "api_key", keyId) : undefined;
  if (!location) throw new ApiError("invalid_token", messages.invalidRenewal);
  const renewed = await renewApiKey(useShard(c, location.shard), c.env, access_token, rotate_key, clientIp(c));
  if (!renewed) throw new ApiError("invalid_token", messages.invalidRenewal);
  return c.json(
    { success: true as const, access_token: renewed.accessToken, rotate_key: renewed.rotateKey, expires_at: renewed.expiresAt },
    200,
  );
};

import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import { renewApiKey } from "@/lib/auth/api-keys.repository";
import { clientIp } from "@/middleware/rate-limit";
import type { renewToken as renewTokenRoute } from "./auth.routes";

export const renewToken: RouteHandler<typeof renewTokenRoute, AppBindings> = async (c) => {
  const { access_token, rotate_key } = c.req.valid("json");
  const renewed = await renewApiKey(c.var.db, c.env, access_token, rotate_key, clientIp(c));
  if (!renewed) throw new ApiError("invalid_token", messages.invalidRenewal);
  return c.json(
    { success: true as const, access_token: renewed.accessToken, rotate_key: renewed.rotateKey, expires_at: renewed.expiresAt },
    200,
  );
};

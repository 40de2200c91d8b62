import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "@/lib/context";
import { bearerToken } from "@/lib/auth/tokens";
import { timingSafeEqual } from "@/lib/crypto";
import { ApiError, invalidToken, messages } from "@/lib/errors";

/**
 * The operator API exists only where ADMIN_TOKEN is configured: without it every /admin
 * path is a plain 404, so a deployment that forgot the secret exposes nothing.
 */
export const adminAuth: MiddlewareHandler<AppBindings> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw new ApiError("not_found", messages.routeNotFound);
  const token = bearerToken(c.req.header("Authorization"));
  if (!token || !timingSafeEqual(token, expected)) throw invalidToken();
  await next();
};

import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import { useShard } from "@/middleware/shard-session";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import { paths } from "@/dashboard/http/paths";
import { findSession, SESSION_COOKIE, SESSION_COOKIE_OPTIONS } from "@/domain/auth/dashboard-sessions";

/**
 * Every page but sign-in and signed-out: a live session of a member who may still use the
 * dashboard, or a redirect to the signed-out page (dropping a cookie that no longer works).
 * The session's agency's shard is the request's database, read at the primary: a browser does
 * not send a D1 bookmark back the way an API client can, and a replica behind the primary could
 * still show a revoked key as active or let an ended session or a removed member in for a moment.
 */
export const requireSession: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  const secret = getCookie(c, SESSION_COOKIE);
  const found = secret ? await findSession(c.env, secret, (shard) => useShard(c, shard, "primary")) : undefined;
  const session = found?.session;
  if (!session) {
    if (secret !== undefined) deleteCookie(c, SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
    return c.redirect(paths.signedOut, 303);
  }
  c.set("session", session);
  await next();
};

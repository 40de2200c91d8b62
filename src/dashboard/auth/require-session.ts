import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import type { DashboardBindings } from "../dashboard-env";
import { paths } from "../paths";
import { loadSession, SECRET_SHAPE, SESSION_COOKIE, SESSION_COOKIE_OPTIONS } from "./sessions";

/**
 * Every page but sign-in and signed-out: a live session of a member who may still use the
 * dashboard, or a redirect to the signed-out page (dropping a cookie that no longer works).
 */
export const requireSession: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  const secret = getCookie(c, SESSION_COOKIE);
  const session = secret && SECRET_SHAPE.test(secret) ? await loadSession(c.var.db, c.env, secret) : undefined;
  if (!session) {
    if (secret !== undefined) deleteCookie(c, SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
    return c.redirect(paths.signedOut, 303);
  }
  c.set("session", session);
  await next();
};

import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppBindings } from "@/lib/context";
import { BOOKMARK_HEADER } from "@/lib/request-headers";

/** One year, for every subdomain: the API is served over HTTPS only (docs/decisions/security-posture.md). */
const HSTS = "max-age=31536000; includeSubDomains";

/**
 * The Content-Security-Policy of an HTML page that sets none itself (docs/decisions/security-posture.md):
 * scripts, styles, images and requests from this origin only, so no inline script runs; forms
 * post only here; no <base> and no framing. A page that needs an exception sets its own policy
 * in its handler and says why (src/lib/reference-page.ts).
 */
export const STRICT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Headers every response carries, errors included (set after the handler, on whatever
 * response it produced): no MIME sniffing, HTTPS only, and no caching of anything that
 * answered an authenticated request (a bearer token or the operator token), so no shared
 * cache keeps one agency's data. Static assets (public/) never reach the Worker: public/_headers
 * gives them the same nosniff and HSTS.
 */
export const securityHeaders: MiddlewareHandler<AppBindings> = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Strict-Transport-Security", HSTS);
  if (c.req.header("Authorization") !== undefined) c.res.headers.set("Cache-Control", "no-store");
  if (c.res.headers.get("Content-Type")?.startsWith("text/html") && !c.res.headers.has("Content-Security-Policy")) {
    c.res.headers.set("Content-Security-Policy", STRICT_CSP);
  }
};

const EXPOSED_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After", "X-Request-Id", BOOKMARK_HEADER];

/** Preflights: Hono's CORS middleware answers them 204 with what may be sent and read. */
const preflight = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", BOOKMARK_HEADER, "X-Request-Id"],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 86_400,
});
const exposed = EXPOSED_HEADERS.join(",");

/**
 * CORS of the Partner API (docs/decisions/security-posture.md): bearer tokens, never cookies, so like
 * GitHub's API any origin may call it; browsers may send the headers the API reads and read
 * the ones it sets. Preflights are answered 204 before any route runs. The operator API and
 * the dashboard get none of this.
 *
 * Other requests get their two CORS headers on the finished response, like the security
 * headers: set before the handler (as Hono's middleware does) they would make Hono build a
 * placeholder response and copy its headers into the real one on every request.
 */
export const partnerCors: MiddlewareHandler<AppBindings> = async (c, next) => {
  if (c.req.method === "OPTIONS") return preflight(c, next);
  await next();
  c.res.headers.set("Access-Control-Allow-Origin", "*");
  c.res.headers.set("Access-Control-Expose-Headers", exposed);
};

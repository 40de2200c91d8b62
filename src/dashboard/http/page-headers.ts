import type { MiddlewareHandler } from "hono";

/**
 * Nothing but this origin's own script and stylesheet, no inline script or style, no framing,
 * forms posting only here: an injected tag could neither run nor send a secret elsewhere.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Headers of every dashboard response, error pages and redirects included. Pages show secrets
 * (and the sign-in URL is one), so nothing is cached and no Referer leaves a page.
 */
export const pageHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("Content-Security-Policy", DASHBOARD_CSP);
  c.res.headers.set("Cache-Control", "no-store");
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("X-Frame-Options", "DENY");
};

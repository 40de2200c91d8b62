import type { MiddlewareHandler } from "hono";
import { SIGN_IN_PATH } from "@/domain/auth/sign-in-links";
import type { DashboardBindings } from "./dashboard-env";

/**
 * Nothing but this origin's own script and stylesheet, no inline script or style, no framing,
 * forms posting only here: an injected tag could neither run nor send a secret elsewhere.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The policy of a page whose form's answer redirects to another origin: the consent page, whose
 * Approve and Deny send the browser on to the app. Browsers hold a form's redirects to
 * `form-action` too, so that one origin (the app's, which the OAuth library checked) is added.
 */
export const cspWithFormTarget = (origin: string) => DASHBOARD_CSP.replace("form-action 'self'", `form-action 'self' ${origin}`);

/**
 * The Referer policy of a response. A page's policy also decides the `Origin` its forms send:
 * under `no-referrer` a browser sends `Origin: null` on a same-origin POST (Fetch, "serializing
 * a request origin"), which the Origin check (auth/csrf.ts) must refuse, so every form would
 * be refused. Pages therefore say `same-origin`: the browser sends this origin on their forms,
 * and no Referer ever leaves for another site. Only the sign-in link's own responses, whose URL
 * is the secret and which hold no form, send none at all.
 */
export const referrerPolicyFor = (path: string) => (path.startsWith(SIGN_IN_PATH) ? "no-referrer" : "same-origin");

/**
 * Headers of every dashboard response, error pages and redirects included. Pages show secrets
 * (and the sign-in URL is one), so nothing is cached and no Referer leaves for another site.
 */
export const pageHeaders: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  await next();
  const target = c.get("formTarget");
  c.res.headers.set("Content-Security-Policy", target ? cspWithFormTarget(target) : DASHBOARD_CSP);
  c.res.headers.set("Cache-Control", "no-store");
  c.res.headers.set("Referrer-Policy", referrerPolicyFor(c.req.path));
  c.res.headers.set("X-Frame-Options", "DENY");
};

import type { Context } from "hono";

/** Sec-Fetch-Site values whose navigation carries a SameSite=Strict cookie through a redirect. */
const SAME_SITE_FETCH = new Set(["same-origin", "same-site", "none"]);

/**
 * A navigation known to carry the session cookie (`SameSite=Strict`): this site's own, or typed
 * in. A browser that sends no Sec-Fetch-Site cannot be told apart from one on another site.
 */
export const carriesStrictCookies = (c: Context) => SAME_SITE_FETCH.has(c.req.header("Sec-Fetch-Site") ?? "");

/** A navigation the browser says came from another site: it carries no `SameSite=Strict` cookie. */
export const isCrossSite = (c: Context) => c.req.header("Sec-Fetch-Site") === "cross-site";

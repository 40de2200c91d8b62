import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { LINK_TTL_MS } from "@/domain/auth/sign-in-links";
import { paths } from "@/dashboard/http/paths";

/**
 * Where a visitor goes once signed in: the consent page an app sent them to before they had a
 * session. `Lax`, unlike the session cookie: the sign-in link is usually opened from a mail or
 * another site, and a top-level navigation from there must still carry it. It holds a path of
 * this dashboard only, so it can never send anyone elsewhere.
 */
const RETURN_COOKIE = "__Host-pa_return_to";
const RETURN_OPTIONS = { httpOnly: true, secure: true, sameSite: "Lax", path: "/" } as const;

const isConsentPath = (value: string) => value.startsWith(`${paths.authorize}?`) && !value.includes("\\");

/** Browsers drop a cookie past about 4 KB: a longer consent URL is not remembered (the member opens it again after signing in). */
const MAX_RETURN_BYTES = 3800;

/** Remembers the consent page's own URL (path and query) for after the sign-in, as long as a sign-in link lives. */
export function rememberReturn(c: Context, url: string) {
  const { pathname, search } = new URL(url);
  const value = encodeURIComponent(`${pathname}${search}`);
  if (value.length <= MAX_RETURN_BYTES) setCookie(c, RETURN_COOKIE, value, { ...RETURN_OPTIONS, maxAge: LINK_TTL_MS / 1000 });
}

/** The page to land on after signing in (and forgets it): the remembered consent page, else the API keys. */
export function takeReturn(c: Context): string {
  const saved = getCookie(c, RETURN_COOKIE);
  if (saved === undefined) return paths.keys;
  deleteCookie(c, RETURN_COOKIE, RETURN_OPTIONS);
  let path: string;
  try {
    path = decodeURIComponent(saved);
  } catch {
    return paths.keys;
  }
  return isConsentPath(path) ? path : paths.keys;
}

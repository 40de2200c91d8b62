import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { openSignInLink, SESSION_TTL_MS } from "@/domain/auth/sign-in-links";
import { createDb } from "@/db/client";
import { agencyLocation, shardDatabase } from "@/db/shards";
import { agencyIdOfSecret } from "@/lib/auth/tokens";
import { useShard } from "@/middleware/shard-session";
import { endSession, findSession, SESSION_COOKIE, SESSION_COOKIE_OPTIONS } from "@/domain/auth/dashboard-sessions";
import { takeReturn } from "../auth/return-to";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import { carriesStrictCookies } from "../http/fetch-site";
import { render } from "../http/render";
import { MessagePage, pageMessages, SignedInHop, SignedOutPage } from "../pages/message-page";
import { paths } from "@/dashboard/http/paths";

type Ctx = Context<DashboardBindings>;

/** GET /dashboard/sign-in/:token: spends the link and starts a session. */
export async function openLink(c: Ctx) {
  // Hono answers HEAD with the GET handler; a link checker or mail scanner probing the link
  // with HEAD must not spend it, so HEAD learns nothing and touches no table.
  if (c.req.method === "HEAD") return c.body(null, 200);
  const token = c.req.param("token") ?? "";
  // The link names its agency, whose shard holds the link.
  const agencyId = agencyIdOfSecret(token);
  const location = agencyId ? await agencyLocation(c.env, agencyId) : undefined;
  const result = location
    ? await openSignInLink(useShard(c, location.shard, "primary"), c.env, location.agencyId, token)
    : ({ outcome: "unknown" } as const);
  switch (result.outcome) {
    case "unknown":
      return render(c, <MessagePage title="Sign-in link not valid" message={pageMessages.linkUnknown} />, 404);
    case "spent":
      return render(c, <MessagePage title="Sign-in link used or expired" message={pageMessages.linkSpent} />, 410);
    case "forbidden":
      return render(
        c,
        <MessagePage title="No access to the dashboard" message={result.removed ? pageMessages.memberRemoved : pageMessages.agentRole} />,
        403,
      );
    case "signed_in": {
      // The cookie is about to be replaced: a session it still holds ends now rather than living
      // on for its 12 hours, unreachable but valid.
      // (It may be of another agency, on another shard.)
      const previous = getCookie(c, SESSION_COOKIE);
      const found = previous ? await findSession(c.env, previous, (shard) => createDb(shardDatabase(c.env, shard))) : undefined;
      if (found) await endSession(found.db, found.session);
      setCookie(c, SESSION_COOKIE, result.secret, { ...SESSION_COOKIE_OPTIONS, maxAge: SESSION_TTL_MS / 1000 });
      // Reached from another site (the platform's app, a mail client), a redirect would arrive
      // without the SameSite=Strict cookie; the page moves on by itself instead. A browser that
      // sends no Sec-Fetch-Site cannot be told apart from one on another site, so only a request
      // known to be same-site or typed in (`none`) gets the redirect.
      const next = takeReturn(c);
      if (!carriesStrictCookies(c)) return render(c, <SignedInHop to={next} />, 200);
      return c.redirect(next, 303);
    }
  }
}

export const signedOut = (c: Ctx) => render(c, <SignedOutPage />, 200);

export const home = (c: Ctx) => c.redirect(paths.keys, 303);

/** POST /dashboard/sign-out: the session ends at once and the cookie is dropped. */
export async function signOut(c: Ctx) {
  await endSession(c.var.db, c.var.session);
  deleteCookie(c, SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
  return c.redirect(paths.signedOut, 303);
}

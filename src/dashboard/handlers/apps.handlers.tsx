import type { Context } from "hono";
import { listAgencyGrants } from "@/domain/auth/app-grants.repository";
import { requireGrant, revokeGrant } from "@/domain/auth/grant-operations";
import { GRANT_ID_PATTERN } from "@/lib/auth/tokens";
import { notFound } from "@/lib/errors";
import { memberActor, type DashboardBindings } from "@/dashboard/http/dashboard-env";
import { render } from "../http/render";
import { AppsPage, RevokeAppPage } from "../pages/apps-page";
import { paths } from "@/dashboard/http/paths";

type Ctx = Context<DashboardBindings>;

const notices: Record<string, string> = {
  revoked: "The app's access was revoked: its next request fails with 401.",
};

/** The agency's grant named in the URL; another agency's is the 404 page, as is anything not shaped like a grant id (without a query). */
function grantInUrl(c: Ctx) {
  const grantId = c.req.param("grantId") ?? "";
  if (!GRANT_ID_PATTERN.test(grantId)) throw notFound("Not found");
  return requireGrant(c.var.db, c.var.session.agencyId, grantId);
}

export async function listApps(c: Ctx) {
  const grants = await listAgencyGrants(c.var.db, c.var.session.agencyId, { includeRevoked: true });
  return render(c, <AppsPage session={c.var.session} grants={grants} notice={notices[c.req.query("notice") ?? ""]} />);
}

export async function confirmRevokeApp(c: Ctx) {
  const grant = await grantInUrl(c);
  if (grant.revokedAt) return c.redirect(paths.apps, 303);
  return render(c, <RevokeAppPage session={c.var.session} grant={grant} />);
}

export async function revokeApp(c: Ctx) {
  const grant = await grantInUrl(c);
  await revokeGrant({ db: c.var.db, env: c.env, actor: memberActor(c) }, grant);
  return c.redirect(`${paths.apps}?notice=revoked`, 303);
}

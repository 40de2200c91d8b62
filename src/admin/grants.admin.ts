import { z, type RouteHandler } from "@hono/zod-openapi";
import { listAgencyGrants, toPublicGrant } from "@/domain/auth/app-grants.repository";
import { requireGrant, revokeGrant, setGrantRateLimit } from "@/domain/auth/grant-operations";
import { OPERATOR } from "@/domain/audit/audit-log";
import { GRANT_ID_PATTERN } from "@/lib/auth/tokens";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { jsonBody } from "@/lib/openapi";
import { ConnectedApp, GRANT_ID_LENGTH } from "@/routes/connected-apps/connected-app.schemas";
import { adminJson, adminRoute, agencyParams, ERRORS_WITHOUT_CONFLICT, requireAgency } from "./admin-route";
import { rateLimitMultiplier } from "./admin.schemas";

const grantParams = agencyParams.extend({
  grant_id: z
    .string()
    .regex(GRANT_ID_PATTERN, "grant_id must be a grant id (16 characters)")
    .openapi({ param: { name: "grant_id", in: "path" }, minLength: GRANT_ID_LENGTH, maxLength: GRANT_ID_LENGTH, example: "pV3q8Zr0LmN2xYtA" }),
});

export const listGrants = adminRoute(
  {
    method: "get",
    path: "/agencies/{agency_uuid}/grants",
    operationId: "adminListGrants",
    summary: "List an agency's connected apps (OAuth grants)",
    description: "Apps and AI agents an owner or admin approved, newest first. Revoked grants only with `include_revoked=true`.",
    request: {
      params: agencyParams,
      query: z.object({
        include_revoked: z
          .enum(["true", "false"])
          .optional()
          .openapi({ param: { name: "include_revoked", in: "query" }, description: "Also list revoked grants (with `revoked_at`)." }),
      }),
    },
    responses: { 200: adminJson(z.object({ success: z.literal(true), grants: z.array(ConnectedApp) }), "The grants.") },
  },
  ERRORS_WITHOUT_CONFLICT,
);

export const deleteGrant = adminRoute(
  {
    method: "delete",
    path: "/agencies/{agency_uuid}/grants/{grant_id}",
    operationId: "adminRevokeGrant",
    summary: "Revoke a connected app",
    description:
      "Ends the grant at once: its next request with any of its tokens is 401 and its refresh token no longer works. Writes " +
      "`app.revoked`. Revoking a revoked grant is 204 too, and changes nothing.",
    request: { params: grantParams },
    responses: { 204: { description: "Revoked." } },
  },
  ERRORS_WITHOUT_CONFLICT,
);

export const updateGrant = adminRoute(
  {
    method: "patch",
    path: "/agencies/{agency_uuid}/grants/{grant_id}",
    operationId: "adminUpdateGrant",
    summary: "Scale a connected app's rate limits",
    description: "As a key's multiplier: every rate limit of the grant is multiplied by it (at least one request), from the grant's next request.",
    request: { params: grantParams, body: jsonBody(z.strictObject({ rate_limit_multiplier: rateLimitMultiplier }).openapi("AdminUpdateGrant", { example: { rate_limit_multiplier: 10 } })) },
    responses: { 200: adminJson(z.object({ success: z.literal(true), grant: ConnectedApp }), "The grant.") },
  },
  ERRORS_WITHOUT_CONFLICT,
);

const listGrantsHandler: RouteHandler<typeof listGrants, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const rows = await listAgencyGrants(c.var.db, agency.id, { includeRevoked: c.req.valid("query").include_revoked === "true" });
  return c.json({ success: true as const, grants: rows.map(({ grant }) => toPublicGrant(grant)) }, 200);
};

const deleteGrantHandler: RouteHandler<typeof deleteGrant, AppBindings> = async (c) => {
  const params = c.req.valid("param");
  const agency = await requireAgency(c, params.agency_uuid);
  const grant = await requireGrant(c.var.db, agency.id, params.grant_id);
  await revokeGrant({ db: c.var.db, env: c.env, actor: OPERATOR }, grant);
  return c.body(null, 204);
};

const updateGrantHandler: RouteHandler<typeof updateGrant, AppBindings> = async (c) => {
  const params = c.req.valid("param");
  const agency = await requireAgency(c, params.agency_uuid);
  const grant = await requireGrant(c.var.db, agency.id, params.grant_id);
  const updated = await setGrantRateLimit({ db: c.var.db, env: c.env }, grant, c.req.valid("json").rate_limit_multiplier);
  return c.json({ success: true as const, grant: toPublicGrant(updated) }, 200);
};

/** Connected apps (OAuth grants), mounted on the operator router (admin.index.ts). */
export const grantsAdminRouter = createRouter()
  .openapi(listGrants, listGrantsHandler)
  .openapi(updateGrant, updateGrantHandler)
  .openapi(deleteGrant, deleteGrantHandler);

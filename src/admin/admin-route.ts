import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agencyLocation } from "@/db/shards";
import type { AppBindings } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { uuidParam } from "@/lib/ids";
import { errorResponses, type ErrorExample } from "@/lib/openapi";
import { strictQuery, UNKNOWN_QUERY_TEXT } from "@/lib/strict-query";
import { adminAuth } from "./admin-auth";
import { useShard } from "@/middleware/shard-session";
import { getAgency } from "@/domain/agencies/agencies.repository";

/** Security scheme name; admin.index.ts registers it, so every operator route must use this constant. */
export const ADMIN_BEARER = "adminBearer";

export const DEFAULT_ERROR_STATUSES = [400, 401, 404, 409, 500];

/** The operator API's own wording of the shared error examples (the partner API's name contacts). */
const OPERATOR_ERROR_EXAMPLES = {
  400: { description: `Invalid parameters or body. ${UNKNOWN_QUERY_TEXT}`, error: "Unknown query parameter: tgas" },
  404: { description: "No such agency (or key, grant or shard, as the path names).", error: "Agency not found" },
};

/** For writes that cannot conflict (plain inserts, upserts): documenting a 409 there would promise an answer that never comes. */
export const ERRORS_WITHOUT_CONFLICT = [400, 401, 404, 500];

/**
 * An operator route: ADMIN_TOKEN bearer, tag `Operator`, documented errors (`examples`: a route's
 * own wording of an error, by status); an unknown query parameter is a 400 naming it.
 */
export const adminRoute = <const R extends RouteConfig>(
  config: R,
  errorStatuses: number[] = DEFAULT_ERROR_STATUSES,
  examples: Partial<Record<number, Partial<ErrorExample>>> = {},
) => {
  const route = createRoute({
    ...config,
    tags: ["Operator"],
    security: [{ [ADMIN_BEARER]: [] }],
    middleware: [adminAuth],
    responses: { ...config.responses, ...errorResponses(errorStatuses, { ...OPERATOR_ERROR_EXAMPLES, ...examples }) },
  });
  // Typed as the route's own query (what its handler reads); checked strictly.
  return createRoute({ ...route, request: { ...config.request, query: strictQuery(config.request?.query) } }) as unknown as typeof route;
};

export const adminJson = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const agencyParams = z.object({ agency_uuid: uuidParam("agency_uuid") });
export const keyParams = z.object({ key_uuid: uuidParam("key_uuid") });

export const agencyNotFound = () => notFound("Agency not found");

/**
 * The agency, read from its shard, which becomes the request's database (`c.var.db`, at the
 * primary: the operator reads what it just wrote). Ids are stored lowercase, but operators may
 * paste them in any case.
 */
export async function requireAgency(c: Context<AppBindings>, agencyUuid: string) {
  const location = await agencyLocation(c.env, agencyUuid.toLowerCase());
  if (!location) throw agencyNotFound();
  const agency = await getAgency(useShard(c, location.shard, "primary"), location.agencyId);
  if (!agency) throw agencyNotFound();
  return { ...agency, location };
}

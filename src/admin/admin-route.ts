import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Db } from "@/db/client";
import { notFound } from "@/lib/errors";
import { uuidParam } from "@/lib/ids";
import { errorResponses } from "@/lib/openapi";
import { adminAuth } from "./admin-auth";
import { getAgency } from "./agencies.repository";

/** Security scheme name; admin.index.ts registers it, so every operator route must use this constant. */
export const ADMIN_BEARER = "adminBearer";

const DEFAULT_ERROR_STATUSES = [400, 401, 404, 409, 500];

/** For writes that cannot conflict (plain inserts, upserts): documenting a 409 there would promise an answer that never comes. */
export const ERRORS_WITHOUT_CONFLICT = [400, 401, 404, 500];

/** An operator route: ADMIN_TOKEN bearer, tag `Operator`, documented errors. */
export const adminRoute = <const R extends RouteConfig>(config: R, errorStatuses: number[] = DEFAULT_ERROR_STATUSES) =>
  createRoute({
    ...config,
    tags: ["Operator"],
    security: [{ [ADMIN_BEARER]: [] }],
    middleware: [adminAuth],
    responses: { ...config.responses, ...errorResponses(errorStatuses) },
  });

export const adminJson = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const agencyParams = z.object({ agency_uuid: uuidParam("agency_uuid") });
export const keyParams = z.object({ key_uuid: uuidParam("key_uuid") });

/** Ids are stored lowercase, but operators may paste them in any case. */
export async function requireAgency(db: Db, agencyUuid: string) {
  const agency = await getAgency(db, agencyUuid.toLowerCase());
  if (!agency) throw notFound("Agency not found");
  return agency;
}

import { z, type RouteHandler } from "@hono/zod-openapi";
import { directoryRecordKinds } from "@/db/schema";
import { findDirectoryOrphans, ORPHAN_GRACE_MS, ORPHAN_SCAN_MAX, purgeDirectoryOrphans, type OrphanScan } from "@/domain/agencies/directory-orphans";
import { integerFormat } from "@/lib/bounded";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { uuidField } from "@/lib/ids";
import { jsonBody } from "@/lib/openapi";
import { queryInteger } from "@/lib/query";
import { adminJson, adminRoute } from "./admin-route";

const GRACE_MINUTES = ORPHAN_GRACE_MS / 60_000;

const DirectoryOrphan = z
  .object({
    record_uuid: z.string().openapi({ description: "The id the directory row names: a key_uuid or an agent_uuid." }),
    kind: z.enum(directoryRecordKinds),
    agency_uuid: z.string(),
    reason: z.enum(["agency_missing", "record_missing"]).openapi({
      description: "`record_missing`: the agency's shard has no such key or member; `agency_missing`: the directory knows no such agency.",
    }),
    shard: z.string().nullable().openapi({ description: "The shard the record was looked for on; null with `agency_missing`." }),
    created_at: z.string().nullable().openapi({ description: "When the row was written; null for rows older than that record (migration 0016)." }),
  })
  .openapi("AdminDirectoryOrphan");

const slice = {
  examined: z.number().int().openapi({ description: `Directory rows looked at (at most ${ORPHAN_SCAN_MAX}).` }),
  next_after: z.string().nullable().openapi({ description: "Pass as `after` for the next slice; null when this one reached the end of the directory." }),
};

const after = uuidField("after").optional().openapi({ description: "Start after this record id: the `next_after` of the previous slice. Absent: from the start." });
const limitText = `Directory rows to look at, 1 to ${ORPHAN_SCAN_MAX} (default ${ORPHAN_SCAN_MAX}).`;
const limitMessage = `limit must be a whole number from 1 to ${ORPHAN_SCAN_MAX}`;

const WHAT =
  "An orphan is a directory row (the agency of an API key or team member, found by id before the agency is known) " +
  "whose record is not on its agency's shard, or whose agency the directory does not know: left by a create whose " +
  `Worker died between its two writes. Rows younger than ${GRACE_MINUTES} minutes (a create may still be under way) and ` +
  "agencies in the middle of a move are passed over. Each call looks at one slice of the directory, in id order: " +
  "call again with `after` = `next_after` until it is null.";

export const listOrphans = adminRoute(
  {
    method: "get",
    path: "/directory/orphans",
    operationId: "adminListDirectoryOrphans",
    summary: "List directory rows whose record never came",
    description: WHAT,
    request: {
      query: z.object({
        after,
        limit: queryInteger("limit", { min: 1, max: ORPHAN_SCAN_MAX, default: ORPHAN_SCAN_MAX, description: limitText }),
      }),
    },
    responses: { 200: adminJson(z.object({ success: z.literal(true), orphans: z.array(DirectoryOrphan), ...slice }), "The orphans of this slice.") },
  },
  // No path parameter: nothing to be not found.
  [400, 401, 500],
);

const PurgeBody = z
  .strictObject({
    after,
    limit: z
      .int({ error: limitMessage })
      .min(1, limitMessage)
      .max(ORPHAN_SCAN_MAX, limitMessage)
      .default(ORPHAN_SCAN_MAX)
      .openapi({ format: integerFormat(1, ORPHAN_SCAN_MAX), description: limitText }),
  })
  .openapi("AdminPurgeDirectoryOrphans", { example: { limit: ORPHAN_SCAN_MAX } });

export const purgeOrphans = adminRoute(
  {
    method: "post",
    path: "/directory/orphans/purge",
    operationId: "adminPurgeDirectoryOrphans",
    summary: "Delete directory rows whose record never came",
    description:
      `${WHAT} Deletes the orphans of the slice, each only if it still is one at that moment (an agency that began or ` +
      "finished a move meanwhile keeps its rows), and answers those deleted. Nothing else is touched: no key, member or agency.",
    request: { body: jsonBody(PurgeBody) },
    responses: { 200: adminJson(z.object({ success: z.literal(true), purged: z.array(DirectoryOrphan), ...slice }), "The orphans deleted from this slice.") },
  },
  // No path parameter: nothing to be not found.
  [400, 401, 500],
);

const toPublic = (scan: OrphanScan) =>
  scan.orphans.map((o) => ({ record_uuid: o.id, kind: o.kind, agency_uuid: o.agencyId, reason: o.reason, shard: o.shard, created_at: o.createdAt }));

const listOrphansHandler: RouteHandler<typeof listOrphans, AppBindings> = async (c) => {
  const { after: from, limit } = c.req.valid("query");
  const scan = await findDirectoryOrphans(c.env, { after: from?.toLowerCase(), limit, now: Date.now() });
  return c.json({ success: true as const, orphans: toPublic(scan), examined: scan.examined, next_after: scan.nextAfter }, 200);
};

const purgeOrphansHandler: RouteHandler<typeof purgeOrphans, AppBindings> = async (c) => {
  const { after: from, limit } = c.req.valid("json");
  const scan = await purgeDirectoryOrphans(c.env, { after: from?.toLowerCase(), limit, now: Date.now() });
  c.var.logger.info("directory orphans purged", { purged: scan.orphans.length, examined: scan.examined });
  return c.json({ success: true as const, purged: toPublic(scan), examined: scan.examined, next_after: scan.nextAfter }, 200);
};

/** Finding and removing directory rows left by creates that never finished (docs/operations.md, Scaling). */
export const directoryAdminRouter = createRouter().openapi(listOrphans, listOrphansHandler).openapi(purgeOrphans, purgeOrphansHandler);

import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { localRangeToUtc } from "@/lib/date-range";
import { badRequest } from "@/lib/errors";
import { UNKNOWN_PATH_MESSAGE } from "@/domain/paths/path-lookup";
import type { Step } from "@/domain/paths/paths.model";
import * as repo from "@/domain/analytics/analytics.repository";
import type * as routes from "./analytics.routes";
import { buildPathReport } from "@/domain/analytics/path-report";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const getPathAnalytics: Handler<"getPathAnalytics"> = async (c) => {
  const query = c.req.valid("query");
  // dateRangeQuery({ required: true }) has checked both dates; its type still says optional.
  const [from, to, path_uuid] = [query.from!, query.to!, query.path_uuid];
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  // Two D1 round trips: the timezone and the paths (an unknown path_uuid is 400, archived
  // paths are known), then the events over the agency-local range.
  const { timezone, paths } = await repo.readReportSetup(db, agencyId, path_uuid);
  if (path_uuid && paths.length === 0) throw badRequest(UNKNOWN_PATH_MESSAGE);
  const bounds = localRangeToUtc(from, to, timezone);
  if (!bounds) throw badRequest(`The agency time zone ${timezone} cannot be used for this range`);
  const { end } = bounds;
  const range = { start: bounds.start.toISOString(), end: end.toISOString() };
  const events = await repo.countPathEvents(db, agencyId, range, path_uuid);
  const withEvents = new Set(events.map((e) => e.pathId));
  const reported = paths.filter((p) => path_uuid || p.status !== "archived" || withEvents.has(p.id));
  const { totals, paths: pathReports } = buildPathReport(
    reported.map((p) => ({ id: p.id, name: p.name, status: p.status, steps: p.steps as Step[] })),
    events,
  );
  return c.json(
    {
      success: true as const,
      report: {
        from,
        to,
        timezone,
        range_start: range.start,
        range_end: new Date(end.getTime() - 1).toISOString(),
        totals,
        paths: pathReports,
      },
    },
    200,
  );
};

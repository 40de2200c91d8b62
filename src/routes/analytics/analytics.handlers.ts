import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { parseIsoDate } from "@/lib/date-range";
import { badRequest } from "@/lib/errors";
import { DAY_MS } from "@/lib/time";
import { wallClockPartsToUtc } from "@/lib/zoned-time";
import { assertKnownPath } from "@/routes/paths/path-lookup";
import type { Step } from "@/routes/paths/paths.schemas";
import * as repo from "./analytics.repository";
import type * as routes from "./analytics.routes";
import { buildPathReport } from "./path-report";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

/** 00:00 of a YYYY-MM-DD day in `zone`, as a UTC instant (a midnight lost to DST moves forward). */
function startOfDay(dayMs: number, zone: string): Date {
  const day = new Date(dayMs);
  const start = wallClockPartsToUtc({ year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate(), hour: 0, minute: 0 }, zone);
  if (!start) throw badRequest(`The agency time zone ${zone} cannot be used for this range`);
  return start.utc;
}

export const getPathAnalytics: Handler<"getPathAnalytics"> = async (c) => {
  const query = c.req.valid("query");
  // dateRangeQuery({ required: true }) has checked both dates; its type still says optional.
  const [from, to, path_uuid] = [query.from!, query.to!, query.path_uuid];
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  if (path_uuid) await assertKnownPath(db, agencyId, path_uuid, { allowArchived: true });
  const timezone = await repo.getAgencyTimezone(db, agencyId);
  const start = startOfDay(parseIsoDate(from)!, timezone);
  const end = startOfDay(parseIsoDate(to)! + DAY_MS, timezone);
  const range = { start: start.toISOString(), end: end.toISOString() };
  const [events, paths] = await Promise.all([
    repo.countPathEvents(db, agencyId, range, path_uuid),
    repo.listPathsForReport(db, agencyId, path_uuid),
  ]);
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

import { messages } from "@/lib/errors";
import { jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { MAX_OTHER_STEP_KEYS, MAX_REPORT_PATHS } from "@/domain/analytics/path-report";
import { PathAnalyticsResponse, PathReportQuery } from "./analytics.schemas";

export const getPathAnalytics = partnerRoute({
  method: "get",
  path: "/analytics/paths",
  operationId: "getPathAnalytics",
  tags: ["Analytics"],
  summary: "Path Analytics report",
  description:
    "Views, leads and bookings of each path, and of each of its steps, between `from` and `to` (YYYY-MM-DD, 1 to 90 " +
    "days inclusive), with three conversion rates: `view_to_lead_rate` (leads / views), `lead_to_booking_rate` " +
    "(bookings / leads) and `view_to_booking_rate` (bookings / views). Rates are fractions rounded to 4 decimals " +
    "(0.1234 = 12.34 %), 0 when the denominator is 0, and can exceed 1 (a lead needs no recorded view). The days are " +
    "whole days in the agency's time zone: from 00:00 of `from` to 23:59:59.999 of `to` (`range_start` and " +
    "`range_end` give the UTC instants). Events: `view` from hosted path pages, `lead` when a contact is created with " +
    "the path's `path_uuid`, `booking` when a booking names it. Without `path_uuid` the report covers every path that is " +
    "not archived (zeros when nothing happened), plus archived paths that had events in the range; `totals` adds them " +
    `all up, and \`paths\` lists the ${MAX_REPORT_PATHS} newest of them (send \`path_uuid\` for any other). A path's ` +
    `\`steps\` are its current steps, then up to ${MAX_OTHER_STEP_KEYS} step keys of removed steps that its events name.`,
  scopes: ["analytics"],
  request: { query: PathReportQuery },
  errorExamples: { 400: { error: messages.invalidDateSpan } },
  responses: { 200: jsonContent(PathAnalyticsResponse, "The report.") },
});

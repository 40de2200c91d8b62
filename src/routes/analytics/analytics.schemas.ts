import { z } from "@hono/zod-openapi";
import { pathStatuses } from "@/db/schema";
import { MAX_TIMEZONE_LENGTH, countInt, dateString, instantString, uuidString } from "@/lib/bounded";
import { dateRangeQuery } from "@/lib/date-range";
import { uuidField } from "@/lib/ids";
import { MAX_NAME_LENGTH as MAX_PATH_NAME_LENGTH, MAX_STEPS, MAX_TITLE_LENGTH } from "@/routes/paths/paths.schemas";
import { stepTypes } from "@/domain/paths/paths.model";
import { MAX_OTHER_STEP_KEYS, MAX_REPORT_PATHS } from "@/domain/analytics/path-report";

/**
 * A step key in the report: a draft's step key (64 characters at most) or the `step` of a path
 * event, which the operator API (src/admin/admin.schemas.ts) takes up to 100 characters.
 */
const MAX_STEP_KEY_LENGTH = 100;

export const PathReportQuery = dateRangeQuery({ required: true }).extend({
  path_uuid: uuidField("path_uuid")
    .transform((id) => id.toLowerCase())
    .optional()
    .openapi({
      param: { name: "path_uuid", in: "query" },
      type: "string",
      format: "uuid",
      description: "Report on this path only (archived paths included). Unknown is 400 `Unknown path_uuid`.",
      example: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70",
    }),
});

const counts = {
  views: countInt().openapi({ description: "`view` events." }),
  leads: countInt().openapi({ description: "`lead` events: contacts created with this path, and leads reported by hosted paths." }),
  bookings: countInt().openapi({ description: "`booking` events: bookings made with this path, and bookings reported by hosted paths." }),
  view_to_lead_rate: z.number().openapi({ description: "leads / views; 0 when views is 0." }),
  lead_to_booking_rate: z.number().openapi({ description: "bookings / leads; 0 when leads is 0." }),
  view_to_booking_rate: z.number().openapi({ description: "bookings / views; 0 when views is 0." }),
};

const metricsExample = { views: 400, leads: 60, bookings: 15, view_to_lead_rate: 0.15, lead_to_booking_rate: 0.25, view_to_booking_rate: 0.0375 };

export const PathReportMetrics = z.object(counts).openapi("PathReportMetrics", { example: metricsExample });

const StepReport = z
  .object({
    key: z.string().min(1).max(MAX_STEP_KEY_LENGTH),
    type: z.enum(stepTypes).nullable().openapi({ description: "Null for a step key that is no longer in the path's draft." }),
    title: z.string().max(MAX_TITLE_LENGTH).nullable().openapi({ description: "Null for a step key that is no longer in the path's draft." }),
    ...counts,
  })
  .openapi("PathStepReport", {
    example: { key: "budget", type: "question", title: "What is your budget?", views: 250, leads: 0, bookings: 0, view_to_lead_rate: 0, lead_to_booking_rate: 0, view_to_booking_rate: 0 },
  });

const pathReportExample = {
  path_uuid: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70",
  name: "Seller valuation funnel",
  status: "published" as const,
  ...metricsExample,
  steps: [
    { key: "intro", type: "content" as const, title: "Find out what your home is worth", views: 400, leads: 0, bookings: 0, view_to_lead_rate: 0, lead_to_booking_rate: 0, view_to_booking_rate: 0 },
  ],
};

const PathReport = z
  .object({
    path_uuid: uuidString(),
    name: z.string().min(1).max(MAX_PATH_NAME_LENGTH),
    status: z.enum(pathStatuses),
    ...counts,
    steps: z
      .array(StepReport)
      .max(MAX_STEPS + MAX_OTHER_STEP_KEYS)
      .openapi({
        description:
          `The path's current steps in order, then up to ${MAX_OTHER_STEP_KEYS} other step keys its events name ` +
          "(alphabetically first). A step counts the events recorded with its key; events without a step count only " +
          "toward the path.",
      }),
  })
  .openapi("PathReport", { example: pathReportExample });

const reportExample = {
  from: "2026-12-01",
  to: "2026-12-30",
  timezone: "America/New_York",
  range_start: "2026-12-01T05:00:00.000Z",
  range_end: "2026-12-31T04:59:59.999Z",
  totals: metricsExample,
  paths: [pathReportExample],
};

export const PathAnalyticsResponse = z
  .object({
    success: z.literal(true),
    report: z.object({
      from: dateString(),
      to: dateString(),
      timezone: z.string().max(MAX_TIMEZONE_LENGTH).openapi({ description: "The agency's time zone, in which `from` and `to` are whole days." }),
      range_start: instantString().openapi({ description: "00:00 of `from` in `timezone`, as UTC." }),
      range_end: instantString().openapi({ description: "23:59:59.999 of `to` in `timezone`, as UTC." }),
      totals: PathReportMetrics,
      paths: z
        .array(PathReport)
        .max(MAX_REPORT_PATHS)
        .openapi({ description: `The ${MAX_REPORT_PATHS} newest paths the report covers at most.` }),
    }),
  })
  .openapi("PathAnalyticsResponse", { example: { success: true, report: reportExample } });

import { z } from "@hono/zod-openapi";
import { messages } from "@/lib/errors";
import { DAY_MS } from "@/lib/time";
import { VERBATIM } from "@/lib/validation";
import { wallClockPartsToUtc } from "@/lib/zoned-time";

export const MAX_RANGE_DAYS = 90;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date in YYYY-MM-DD (no 2026-02-30), as epoch ms at UTC midnight. */
export function parseIsoDate(value: string): number | null {
  if (!DATE.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return null;
  return ms;
}

/** 00:00 of the day at `dayMs` (a UTC midnight) in `zone`, as a UTC instant; null when the zone cannot place it. */
function startOfDayIn(dayMs: number, zone: string): Date | null {
  const day = new Date(dayMs);
  const parts = { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate(), hour: 0, minute: 0 };
  return wallClockPartsToUtc(parts, zone)?.utc ?? null;
}

/**
 * The agency-local days `from`..`to` (YYYY-MM-DD, both included) as UTC bounds [start, end):
 * 00:00 of `from` and 00:00 of the day after `to` in `zone` (a midnight lost to DST moves
 * forward, see src/lib/zoned-time.ts). Null when a date is invalid or the zone cannot place it.
 */
export function localRangeToUtc(from: string, to: string, zone: string): { start: Date; end: Date } | null {
  const fromMs = parseIsoDate(from);
  const toMs = parseIsoDate(to);
  if (fromMs === null || toMs === null) return null;
  const start = startOfDayIn(fromMs, zone);
  const end = startOfDayIn(toMs + DAY_MS, zone);
  return start && end ? { start, end } : null;
}

/** Days in [from, to], counting both ends: the same day is 1. */
export const inclusiveDays = (fromMs: number, toMs: number) => Math.round((toMs - fromMs) / DAY_MS) + 1;

/** Length of a YYYY-MM-DD date, which `parseIsoDate` requires. */
const DATE_LENGTH = 10;

const dateParam = (name: "from" | "to", example: string) =>
  z.string({ error: messages.invalidDateFormat }).openapi({
    param: { name, in: "query" },
    description: `${name === "from" ? "First" : "Last"} day of the range, YYYY-MM-DD (inclusive).`,
    // Enforced by the range's refinement (parseIsoDate), with the specification's message
    // (docs/decisions/resources.md).
    format: "date",
    minLength: DATE_LENGTH,
    maxLength: DATE_LENGTH,
    example,
  });

/**
 * `from` and `to` (the specification's date range rules, docs/decisions/resources.md): both
 * YYYY-MM-DD, spanning 1 to 90 days inclusive, with the specification's messages.
 * `required: false` lets a list make the range optional, but then both or neither must be given.
 */
export function dateRangeQuery(options: { required: boolean }) {
  const base = z.object({
    from: options.required ? dateParam("from", "2026-12-01") : dateParam("from", "2026-12-01").optional(),
    to: options.required ? dateParam("to", "2026-12-30") : dateParam("to", "2026-12-30").optional(),
  });
  return base.superRefine((value, ctx) => {
    if (value.from === undefined && value.to === undefined && !options.required) return;
    const from = value.from === undefined ? null : parseIsoDate(value.from);
    const to = value.to === undefined ? null : parseIsoDate(value.to);
    if (from === null || to === null) {
      ctx.addIssue({ code: "custom", path: [from === null ? "from" : "to"], message: messages.invalidDateFormat, params: VERBATIM });
      return;
    }
    const days = inclusiveDays(from, to);
    if (days < 1 || days > MAX_RANGE_DAYS) {
      ctx.addIssue({ code: "custom", path: ["to"], message: messages.invalidDateSpan, params: VERBATIM });
    }
  });
}

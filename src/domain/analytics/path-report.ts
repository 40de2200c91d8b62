import type { StepType } from "@/domain/paths/paths.model";

/**
 * A report lists at most this many paths (the newest), so it stays one bounded response however
 * many paths an agency keeps; `totals` still counts them all, and `path_uuid` reports any one.
 */
export const MAX_REPORT_PATHS = 100;
/** Per path, at most this many step keys that are no longer in its draft (alphabetically first). */
export const MAX_OTHER_STEP_KEYS = 50;

/**
 * Path Analytics arithmetic, kept apart from the queries so it can be read (and checked) on
 * its own. Conversion rates are fractions (0.25 = 25 %), rounded half up to 4 decimals, and
 * 0 when their denominator is 0. They are not capped at 1: contacts can name a path without
 * a recorded view.
 */
export const RATE_DECIMALS = 4;

export const rate = (numerator: number, denominator: number) => {
  if (denominator === 0) return 0;
  const scale = 10 ** RATE_DECIMALS;
  // Scale before dividing: counts are integers, so an exact half (3 / 20000 = 0.00015) stays
  // exact and rounds up, where (3 / 20000) * 10000 would be 1.4999999999999998.
  return Math.round((numerator * scale) / denominator) / scale;
};

export interface Counts {
  views: number;
  leads: number;
  bookings: number;
}

export const metrics = ({ views, leads, bookings }: Counts) => ({
  views,
  leads,
  bookings,
  view_to_lead_rate: rate(leads, views),
  lead_to_booking_rate: rate(bookings, leads),
  view_to_booking_rate: rate(bookings, views),
});

export interface EventCount {
  pathId: string;
  step: string | null;
  type: "view" | "lead" | "booking";
  count: number;
}

export interface ReportPath {
  id: string;
  name: string;
  status: "draft" | "published" | "archived";
  steps: { key: string; type: StepType; title: string }[];
}

const zero = (): Counts => ({ views: 0, leads: 0, bookings: 0 });
const field = { view: "views", lead: "leads", booking: "bookings" } as const;

/**
 * Per path: every event of the path in the range, whatever its step. Per step: the events
 * recorded with that step key; the path's current steps come first in their order, then other
 * keys the events name (a step since removed), the first MAX_OTHER_STEP_KEYS alphabetically,
 * with null title and type. Only the first MAX_REPORT_PATHS paths are listed; the totals add up
 * every path given.
 */
export function buildPathReport(paths: ReportPath[], events: EventCount[]) {
  const byPath = new Map<string, { total: Counts; steps: Map<string, Counts> }>();
  for (const event of events) {
    let entry = byPath.get(event.pathId);
    if (!entry) byPath.set(event.pathId, (entry = { total: zero(), steps: new Map() }));
    entry.total[field[event.type]] += event.count;
    if (event.step !== null) {
      let step = entry.steps.get(event.step);
      if (!step) entry.steps.set(event.step, (step = zero()));
      step[field[event.type]] += event.count;
    }
  }
  const totals = zero();
  for (const path of paths) {
    const total = byPath.get(path.id)?.total ?? zero();
    totals.views += total.views;
    totals.leads += total.leads;
    totals.bookings += total.bookings;
  }
  const reported = paths.slice(0, MAX_REPORT_PATHS).map((path) => {
    const entry = byPath.get(path.id) ?? { total: zero(), steps: new Map<string, Counts>() };
    const known = new Set(path.steps.map((s) => s.key));
    const extra = [...entry.steps.keys()]
      .filter((key) => !known.has(key))
      .sort()
      .slice(0, MAX_OTHER_STEP_KEYS);
    return {
      path_uuid: path.id,
      name: path.name,
      status: path.status,
      ...metrics(entry.total),
      steps: [
        ...path.steps.map((s) => ({ key: s.key, type: s.type, title: s.title, ...metrics(entry.steps.get(s.key) ?? zero()) })),
        ...extra.map((key) => ({ key, type: null, title: null, ...metrics(entry.steps.get(key)!) })),
      ],
    };
  });
  return { totals: metrics(totals), paths: reported };
}

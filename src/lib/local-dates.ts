import { DAY_MS } from "@/lib/time";
import { wallClockPartsToUtc } from "@/lib/zoned-time";

/**
 * Local calendar dates (YYYY-MM-DD) and wall-clock minutes, shared by everything that reasons
 * in an agency's or a calendar's own time: working hours and slots, calling hours.
 */

/** Length of a wall-clock time of day, `HH:MM`. */
export const TIME_OF_DAY_LENGTH = 5;

/** `HH:MM` (00:00 .. 24:00) as minutes after midnight. */
export const minutesOfDay = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const MINUTES_PER_DAY = 1440;

// Calendar-date arithmetic on YYYY-MM-DD: dates carry no zone, so UTC midnights are exact.
// Years past 9999 (the day after 9999-12-31) print in ISO's expanded form, +010000-01-01.
export const dateMs = (date: string) => Date.parse(`${date}T00:00:00.000Z`);
const dateOf = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return iso.slice(0, iso.indexOf("T"));
};

export const nextDate = (date: string) => dateOf(dateMs(date) + DAY_MS);
export const previousDate = (date: string) => dateOf(dateMs(date) - DAY_MS);

/** 0 = Sunday ... 6 = Saturday: the weekday of a calendar date does not depend on a zone. */
export const weekdayOf = (date: string) => new Date(dateMs(date)).getUTCDay();

/** Longest list `datesBetween` returns; ranges are validated to 90 days long before. */
const MAX_DATES = 366;

/** Every date from `from` to `to`, both included (counted, so no string comparison can run away). */
export function datesBetween(from: string, to: string): string[] {
  const start = dateMs(from);
  const count = Math.round((dateMs(to) - start) / DAY_MS) + 1;
  if (!Number.isFinite(count) || count < 1) return [];
  return Array.from({ length: Math.min(count, MAX_DATES) }, (_, i) => dateOf(start + i * DAY_MS));
}

const DATE_PARTS = /^([+-]?\d{4,6})-(\d{2})-(\d{2})$/;

/**
 * The UTC instant of wall-clock `minutes` after midnight on `date` in `zone`, through the
 * shared DST policy (src/lib/zoned-time.ts): a time in a spring-forward gap moves forward by
 * the gap, a time in a fall-back overlap is its first (earlier) occurrence. 24:00 is midnight
 * at the start of the next day. Null when the zone cannot place the time.
 */
export function wallClockInstant(date: string, minutes: number, zone: string): number | null {
  const day = minutes >= MINUTES_PER_DAY ? nextDate(date) : date;
  const m = minutes % MINUTES_PER_DAY;
  const parts = DATE_PARTS.exec(day);
  if (!parts) return null;
  const [year, month, dayOfMonth] = parts.slice(1).map(Number) as [number, number, number];
  const resolved = wallClockPartsToUtc({ year, month, day: dayOfMonth, hour: Math.floor(m / 60), minute: m % 60 }, zone);
  return resolved ? resolved.utc.getTime() : null;
}

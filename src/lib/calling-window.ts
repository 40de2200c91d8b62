import { minutesOfDay, nextDate, previousDate, wallClockInstant, weekdayOf } from "@/lib/local-dates";
import { utcToWallClock } from "@/lib/zoned-time";

/**
 * The agency's calling hours: the daily wall-clock window, in its calling timezone, in which
 * outbound calls may be dialed. A window whose `end` is not after its `start` runs past
 * midnight (22:00-02:00 opens at 22:00 and closes at 02:00 the next day); `end` may be 24:00.
 * `days` are the weekdays (0 = Sunday ... 6 = Saturday) on which the window opens; a window
 * past midnight belongs to the day it opens.
 */
export interface CallingWindow {
  timezone: string;
  start: string;
  end: string;
  days: readonly number[];
}

export const ALL_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6] as const;
const WEEKDAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/**
 * The window that opens on local `date`, as UTC instants [open, close), or null when it does
 * not open that day. Both ends go through the shared DST policy (src/lib/zoned-time.ts): an
 * end inside a spring-forward gap moves forward by the gap, one inside a fall-back overlap is
 * its first occurrence; a window the gap swallows whole is empty.
 */
function windowOpeningOn(window: CallingWindow, date: string): { open: number; close: number } | null {
  if (!window.days.includes(weekdayOf(date))) return null;
  const start = minutesOfDay(window.start);
  const end = minutesOfDay(window.end);
  const open = wallClockInstant(date, start, window.timezone);
  const close = end > start ? wallClockInstant(date, end, window.timezone) : wallClockInstant(nextDate(date), end, window.timezone);
  if (open === null || close === null || close <= open) return null;
  return { open, close };
}

/** A window opens at most once a day, so a week and a day always reach the next opening. */
const SEARCH_DAYS = 9;

/**
 * The first instant at or after `instant` at which the window is open: `instant` itself when
 * it is open then, else the next opening. Null only for a window that never opens (no days).
 */
export function openingAtOrAfter(window: CallingWindow, instant: number): number | null {
  // A window that opened yesterday may still be open (it runs past midnight).
  let date = previousDate(utcToWallClock(instant, window.timezone).date);
  for (let i = 0; i < SEARCH_DAYS; i++, date = nextDate(date)) {
    const span = windowOpeningOn(window, date);
    if (span && span.close > instant) return Math.max(span.open, instant);
  }
  return null;
}

export const isWithinWindow = (window: CallingWindow, instant: number) => openingAtOrAfter(window, instant) === instant;

/** `09:00-19:00 America/New_York`, with the weekdays when not every day. */
export function describeWindow(window: CallingWindow): string {
  const hours = `${window.start}-${window.end} ${window.timezone}`;
  if (ALL_WEEKDAYS.every((d) => window.days.includes(d))) return hours;
  const days = [...window.days].sort((a, b) => a - b).map((d) => WEEKDAY_NAMES[d]);
  return `${hours} on ${days.join(", ")}`;
}

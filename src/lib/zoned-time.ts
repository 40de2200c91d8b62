import { DateTime } from "luxon";

/**
 * Wall-clock time in an IANA zone <-> UTC instants, through luxon (tz rules from the
 * runtime's Intl data). One policy for every route, documented for partners:
 * - a time inside a spring-forward gap does not exist; it is moved forward by the length
 *   of the gap (02:30 on a 02:00->03:00 night becomes 03:30), reported as `gap`;
 * - a time inside a fall-back overlap happens twice; the first (earlier) instant is used,
 *   reported as `overlap`.
 */
export type WallClockResolution = "exact" | "gap" | "overlap";

export interface ZonedInstant {
  utc: Date;
  resolution: WallClockResolution;
}

/**
 * Longest date-time a request may send: room for every ISO 8601 form a partner would use
 * (`2026-12-01T14:00:00.123456789+05:30` is 35 characters).
 */
export const MAX_DATETIME_INPUT_LENGTH = 40;

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Parses `YYYY-MM-DDTHH:MM[:SS]` (no offset) as wall-clock time in `zone`; null when invalid. */
export function wallClockToUtc(local: string, zone: string): ZonedInstant | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  return wallClockPartsToUtc({ year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second! }, zone);
}

export interface WallClockParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

export function wallClockPartsToUtc(parts: WallClockParts, zone: string): ZonedInstant | null {
  const wanted = { ...parts, second: parts.second ?? 0, millisecond: 0 };
  const dt = DateTime.fromObject(wanted, { zone });
  if (!dt.isValid) return null;
  // Out-of-range parts (month 13, 24:00) are invalid, not rolled over.
  if (wanted.month > 12 || wanted.day > dt.daysInMonth! || wanted.hour > 23 || wanted.minute > 59 || wanted.second > 59) {
    return null;
  }
  const sameWallClock = dt.year === wanted.year && dt.month === wanted.month && dt.day === wanted.day && dt.hour === wanted.hour && dt.minute === wanted.minute;
  if (!sameWallClock) return { utc: dt.toUTC().toJSDate(), resolution: "gap" };
  const candidates = dt.getPossibleOffsets();
  if (candidates.length > 1) {
    const earliest = candidates.reduce((a, b) => (a.toMillis() <= b.toMillis() ? a : b));
    return { utc: earliest.toUTC().toJSDate(), resolution: "overlap" };
  }
  return { utc: dt.toUTC().toJSDate(), resolution: "exact" };
}

/** The wall clock in `zone` at a UTC instant. */
export function utcToWallClock(instant: Date | number, zone: string) {
  const dt = DateTime.fromMillis(new Date(instant).getTime(), { zone });
  return {
    date: dt.toFormat("yyyy-LL-dd"),
    time: dt.toFormat("HH:mm"),
    /** 0 = Sunday ... 6 = Saturday. */
    weekday: dt.weekday % 7,
    offset: dt.toFormat("ZZ"),
    /** ISO 8601 with the zone's offset, e.g. 2026-11-01T09:00:00.000-05:00. */
    iso: dt.toISO()!,
  };
}

/** The current date (YYYY-MM-DD) in `zone`. */
export const todayIn = (zone: string, now: Date | number = Date.now()) => utcToWallClock(now, zone).date;

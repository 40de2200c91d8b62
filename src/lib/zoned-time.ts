/**
 * Wall-clock time in an IANA zone <-> UTC instants, from the runtime's tz data (Intl). One
 * policy for every route, documented for partners:
 * - a time inside a spring-forward gap does not exist; it is moved forward by the length
 *   of the gap (02:30 on a 02:00->03:00 night becomes 03:30), reported as `gap`;
 * - a time inside a fall-back overlap happens twice; the first (earlier) instant is used,
 *   reported as `overlap`.
 *
 * The arithmetic is luxon's (3.7), which this module replaced to keep the Worker's bundle small
 * (docs/decisions/platform.md, The bundle): the same offset lookup, the same guess-and-correct
 * conversion and the same formatting, so every answer is the one luxon gave.
 * test/lib/zoned-time.test.ts compares the two over every zone of the runtime.
 */
import { DAY_MS } from "./time";
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

const MINUTE_MS = 60_000;

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** One formatter per zone name (null: not a zone the runtime knows), as luxon caches them. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterOf(zone: string): Intl.DateTimeFormat | null {
  let dtf = formatters.get(zone);
  if (dtf === undefined) {
    try {
      dtf = new Intl.DateTimeFormat("en-US", {
        hour12: false,
        timeZone: zone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        era: "short",
      });
    } catch {
      dtf = null;
    }
    formatters.set(zone, dtf);
  }
  return dtf;
}

/** A zone: its offset (minutes east of UTC) at an instant; `fixed` for UTC named as such. */
interface Zone {
  fixed: boolean;
  offset(ts: number): number;
}

const UTC_ZONE: Zone = { fixed: true, offset: () => 0 };

/** `UTC` and `GMT` in any case are the fixed UTC zone (ISO times end in `Z`); other names go to Intl. */
function zoneOf(name: string): Zone | null {
  const lowered = name.toLowerCase();
  if (lowered === "utc" || lowered === "gmt") return UTC_ZONE;
  const dtf = formatterOf(name);
  return dtf ? { fixed: false, offset: (ts) => intlOffset(dtf, ts) } : null;
}

/** The zone's offset at `ts` in minutes: its wall clock read as UTC, less the instant (whole seconds). */
function intlOffset(dtf: Intl.DateTimeFormat, ts: number): number {
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return NaN;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let era = "";
  for (const { type, value } of dtf.formatToParts(date)) {
    if (type === "year") year = parseInt(value, 10);
    else if (type === "month") month = parseInt(value, 10);
    else if (type === "day") day = parseInt(value, 10);
    else if (type === "hour") hour = parseInt(value, 10);
    else if (type === "minute") minute = parseInt(value, 10);
    else if (type === "second") second = parseInt(value, 10);
    else if (type === "era") era = value;
  }
  if (era === "BC") year = -Math.abs(year) + 1;
  // Some engines print midnight as 24 with hour12: false.
  const asUtc = localMs({ year, month, day, hour: hour === 24 ? 0 : hour, minute, second, millisecond: 0 });
  let asTs = date.getTime();
  const over = asTs % 1000;
  asTs -= over >= 0 ? over : 1000 + over;
  return (asUtc - asTs) / MINUTE_MS;
}

/** Wall-clock fields as if they were UTC, in epoch ms (years 0-99 are not 1900-1999). */
function localMs(f: Fields): number {
  const ms = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.millisecond);
  if (f.year < 100 && f.year >= 0) {
    const d = new Date(ms);
    d.setUTCFullYear(f.year, f.month - 1, f.day);
    return d.getTime();
  }
  return ms;
}

/** The wall-clock fields of instant `ts` at `offset` minutes. */
function fieldsAt(ts: number, offset: number): Fields {
  const d = new Date(ts + offset * MINUTE_MS);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}

/**
 * The instant of local time `local` (as ms) in `zone`, from a guessed offset: corrected once;
 * when the correction lands on a third offset the time is in a gap, and is read with the offset
 * before the gap (so it moves forward by the gap). Returns the instant and the offset in force.
 */
function fixOffset(local: number, guess: number, zone: Zone): [number, number] {
  let utc = local - guess * MINUTE_MS;
  const o2 = zone.offset(utc);
  if (guess === o2) return [utc, guess];
  utc -= (o2 - guess) * MINUTE_MS;
  const o3 = zone.offset(utc);
  if (o2 === o3) return [utc, o2];
  return [local - Math.min(o2, o3) * MINUTE_MS, Math.max(o2, o3)];
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function daysInMonth(year: number, month: number): number {
  const m = (((month - 1) % 12) + 12) % 12;
  const y = year + (month - 1 - m) / 12;
  return m === 1 ? (isLeapYear(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]!;
}

const between = (n: number, low: number, high: number) => Number.isInteger(n) && n >= low && n <= high;

/** A real calendar date and a time of day (24:00 only as 24:00:00.000, the end of the day). */
function isValidFields(f: Fields): boolean {
  const hour = between(f.hour, 0, 23) || (f.hour === 24 && f.minute === 0 && f.second === 0 && f.millisecond === 0);
  return (
    Number.isInteger(f.year) &&
    between(f.month, 1, 12) &&
    between(f.day, 1, daysInMonth(f.year, f.month)) &&
    hour &&
    between(f.minute, 0, 59) &&
    between(f.second, 0, 59) &&
    between(f.millisecond, 0, 999)
  );
}

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

export function wallClockPartsToUtc(parts: WallClockParts, zoneName: string): ZonedInstant | null {
  const wanted: Fields = { ...parts, second: parts.second ?? 0, millisecond: 0 };
  const zone = zoneOf(zoneName);
  // Out-of-range parts (month 13, 24:00) are invalid, not rolled over.
  if (!zone || !isValidFields(wanted) || wanted.hour > 23) return null;
  const local = localMs(wanted);
  // The first guess is the zone's offset now, as luxon's was; the result does not depend on it.
  const [utc, offset] = fixOffset(local, zone.offset(Date.now()), zone);
  const got = fieldsAt(utc, offset);
  const sameWallClock = got.year === wanted.year && got.month === wanted.month && got.day === wanted.day && got.hour === wanted.hour && got.minute === wanted.minute;
  if (!sameWallClock) return { utc: new Date(utc), resolution: "gap" };
  const earliest = firstOfOverlap(localMs(got), zone);
  if (earliest !== null) return { utc: new Date(earliest), resolution: "overlap" };
  return { utc: new Date(utc), resolution: "exact" };
}

/**
 * When the wall-clock time `local` (as ms) happens twice in `zone` (a fall-back overlap), the
 * earlier instant; null when it happens once. The two candidates are read with the offsets a day
 * before and a day after.
 */
function firstOfOverlap(local: number, zone: Zone): number | null {
  if (zone.fixed) return null;
  const o1 = zone.offset(local - zone.offset(local - DAY_MS) * MINUTE_MS);
  const o2 = zone.offset(local - zone.offset(local + DAY_MS) * MINUTE_MS);
  if (o1 === o2) return null;
  const ts1 = local - o1 * MINUTE_MS;
  const ts2 = local - o2 * MINUTE_MS;
  const [c1, c2] = [fieldsAt(ts1, o1), fieldsAt(ts2, o2)];
  const same = c1.hour === c2.hour && c1.minute === c2.minute && c1.second === c2.second && c1.millisecond === c2.millisecond;
  return same ? Math.min(ts1, ts2) : null;
}

/** `n` zero-padded to `width` digits, a minus sign before a negative one. */
function pad(n: number, width = 2): string {
  return n < 0 ? `-${String(-n).padStart(width, "0")}` : String(n).padStart(width, "0");
}

/** `+05:30`, `-05:00`, `+00:00`. */
function formatOffset(offset: number): string {
  const hours = Math.trunc(Math.abs(offset / 60));
  const minutes = Math.trunc(Math.abs(offset % 60));
  return `${offset >= 0 ? "+" : "-"}${pad(hours)}:${pad(minutes)}`;
}

/** The wall clock in `zone` at a UTC instant. */
export function utcToWallClock(instant: Date | number, zoneName: string) {
  const ts = new Date(instant).getTime();
  const zone = zoneOf(zoneName);
  if (!zone) throw new RangeError(`Invalid time zone specified: ${zoneName}`);
  const offset = zone.offset(ts);
  const f = fieldsAt(ts, offset);
  const longYear = f.year > 9999 || f.year < 0;
  const isoDate = `${longYear && f.year >= 0 ? "+" : ""}${pad(f.year, longYear ? 6 : 4)}-${pad(f.month)}-${pad(f.day)}`;
  const isoOffset = zone.fixed && offset === 0 ? "Z" : formatOffset(offset);
  return {
    date: `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`,
    time: `${pad(f.hour)}:${pad(f.minute)}`,
    /** 0 = Sunday ... 6 = Saturday. */
    weekday: new Date(ts + offset * MINUTE_MS).getUTCDay(),
    offset: formatOffset(offset),
    /** ISO 8601 with the zone's offset, e.g. 2026-11-01T09:00:00.000-05:00. */
    iso: `${isoDate}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}.${pad(f.millisecond, 3)}${isoOffset}`,
  };
}

/** The current date (YYYY-MM-DD) in `zone`. */
export const todayIn = (zone: string, now: Date | number = Date.now()) => utcToWallClock(now, zone).date;

/** The UTC offset of an IANA zone at instant `ts`, in minutes east of UTC (NaN for an unknown zone). */
export function zoneOffset(zoneName: string, ts: number): number {
  const dtf = formatterOf(zoneName);
  return dtf ? intlOffset(dtf, ts) : NaN;
}

// Offsets of ISO instants run from -12:00 to +14:00 (the caller's pattern checks the form).
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 instant with `Z` or an offset (`2026-12-01T14:00:00.250+05:30`) as epoch ms; null
 * when the date or time does not exist (02-30, 09:60). `24:00` is the end of the day.
 */
export function parseOffsetInstant(value: string): number | null {
  const m = INSTANT.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const fields: Fields = {
    year,
    month,
    day,
    hour,
    minute,
    second: m[6] ? Number(m[6]) : 0,
    // luxon's reading of a fraction (floor of 0.<digits> x 1000).
    millisecond: m[7] ? Math.floor(parseFloat(`0.${m[7]}`) * 1000) : 0,
  };
  if (!isValidFields(fields)) return null;
  const offsetHours = m[8] ? 0 : parseInt(`${m[9]}${m[10]}`, 10);
  const offsetMinutes = m[8] ? 0 : parseInt(m[11]!, 10);
  const offset = offsetHours * 60 + (m[9] === "-" ? -offsetMinutes : offsetMinutes);
  return localMs(fields) - offset * MINUTE_MS;
}

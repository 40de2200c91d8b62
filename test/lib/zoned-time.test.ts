import fc from "fast-check";
import { DateTime, IANAZone } from "luxon";
import { describe, expect, it } from "vitest";
import { parseOffsetInstant, utcToWallClock, wallClockPartsToUtc, wallClockToUtc, zoneOffset } from "@/lib/zoned-time";

const NY = "America/New_York";

describe("wall-clock time across DST", () => {
  it("converts an ordinary time with the zone's offset", () => {
    expect(wallClockToUtc("2026-07-01T09:00", NY)).toEqual({ utc: new Date("2026-07-01T13:00:00.000Z"), resolution: "exact" });
    expect(wallClockToUtc("2026-12-01T09:00", NY)).toEqual({ utc: new Date("2026-12-01T14:00:00.000Z"), resolution: "exact" });
  });

  it("moves a time in the spring-forward gap forward by the gap", () => {
    // 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT.
    expect(wallClockToUtc("2026-03-08T02:30", NY)).toEqual({ utc: new Date("2026-03-08T07:30:00.000Z"), resolution: "gap" });
    expect(utcToWallClock(new Date("2026-03-08T07:30:00.000Z"), NY).time).toBe("03:30");
  });

  it("takes the first of the two instants in the fall-back overlap", () => {
    // 2026-11-01: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST).
    expect(wallClockToUtc("2026-11-01T01:30", NY)).toEqual({ utc: new Date("2026-11-01T05:30:00.000Z"), resolution: "overlap" });
  });

  it("rejects impossible or malformed wall-clock times", () => {
    for (const bad of ["2026-02-30T09:00", "2026-13-01T09:00", "2026-01-01T24:00", "2026-01-01T09:60", "2026-01-01", "tomorrow", "2026-01-01T09:00Z"]) {
      expect(wallClockToUtc(bad, NY), bad).toBeNull();
    }
  });

  it("reads the wall clock, weekday and offset at an instant", () => {
    expect(utcToWallClock(new Date("2026-11-02T14:00:00.000Z"), NY)).toMatchObject({
      date: "2026-11-02",
      time: "09:00",
      weekday: 1,
      offset: "-05:00",
    });
  });
});

/**
 * luxon did this module's work before (docs/decisions/platform.md, The bundle); these are its
 * answers, computed the way the module computed them, so that the Intl code gives the same
 * answer for every zone of the runtime, in ordinary times, across every DST change of a year,
 * and for instants and ISO strings of every shape a request can send.
 */
function luxonWallClockToUtc(parts: { year: number; month: number; day: number; hour: number; minute: number; second?: number }, zone: string) {
  const wanted = { ...parts, second: parts.second ?? 0, millisecond: 0 };
  const dt = DateTime.fromObject(wanted, { zone });
  if (!dt.isValid) return null;
  if (wanted.month > 12 || wanted.day > dt.daysInMonth! || wanted.hour > 23 || wanted.minute > 59 || wanted.second > 59) return null;
  const sameWallClock = dt.year === wanted.year && dt.month === wanted.month && dt.day === wanted.day && dt.hour === wanted.hour && dt.minute === wanted.minute;
  if (!sameWallClock) return { utc: dt.toUTC().toJSDate(), resolution: "gap" };
  const candidates = dt.getPossibleOffsets();
  if (candidates.length > 1) {
    const earliest = candidates.reduce((a, b) => (a.toMillis() <= b.toMillis() ? a : b));
    return { utc: earliest.toUTC().toJSDate(), resolution: "overlap" };
  }
  return { utc: dt.toUTC().toJSDate(), resolution: "exact" };
}

function luxonUtcToWallClock(instant: number, zone: string) {
  const dt = DateTime.fromMillis(instant, { zone });
  return { date: dt.toFormat("yyyy-LL-dd"), time: dt.toFormat("HH:mm"), weekday: dt.weekday % 7, offset: dt.toFormat("ZZ"), iso: dt.toISO()! };
}

const ZONES = [...Intl.supportedValuesOf("timeZone"), "UTC", "utc", "GMT", "Etc/UTC", "Etc/GMT+5", "america/new_york"];
const HOUR_MS = 3_600_000;
const DAY = 24 * HOUR_MS;

describe("the same answers as luxon", () => {
  it("at every wall-clock half hour around every offset change of 2026, in every zone", () => {
    let changes = 0;
    for (const zone of ZONES) {
      const iana = IANAZone.create(zone);
      // Zones with daylight saving time (their January and July offsets differ).
      if (iana.offset(Date.UTC(2026, 0, 1)) === iana.offset(Date.UTC(2026, 6, 1))) continue;
      let offset = iana.offset(Date.UTC(2026, 0, 1));
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += DAY) {
        const next = iana.offset(t + DAY);
        if (next === offset) continue;
        offset = next;
        changes++;
        // The change falls within [t, t + 1 day] (UTC), so within 14 hours of it in local time
        // (offsets run from -12:00 to +14:00): wall-clock times every 30 minutes across that.
        const local = DateTime.fromMillis(t - 14 * HOUR_MS, { zone: "utc" });
        for (let m = 0; m <= 52 * 60; m += 30) {
          const at = local.plus({ minutes: m });
          const parts = { year: at.year, month: at.month, day: at.day, hour: at.hour, minute: at.minute };
          expect(wallClockPartsToUtc(parts, zone), `${zone} ${at.toISO()}`).toEqual(luxonWallClockToUtc(parts, zone));
        }
      }
    }
    expect(changes).toBeGreaterThan(100);
  });

  it("for any wall-clock parts, valid or not, in any zone", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.record({
          year: fc.oneof(fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 0, max: 9999 })),
          month: fc.integer({ min: 0, max: 13 }),
          day: fc.integer({ min: 0, max: 32 }),
          hour: fc.integer({ min: 0, max: 24 }),
          minute: fc.integer({ min: 0, max: 60 }),
          second: fc.integer({ min: 0, max: 60 }),
        }),
        (zone, parts) => {
          expect(wallClockPartsToUtc(parts, zone)).toEqual(luxonWallClockToUtc(parts, zone));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("for the wall clock, weekday, offset and ISO time at any instant of years 0000-9999, in any zone", () => {
    const first = Date.UTC(0, 0, 1) - 1900 * 365.2425 * DAY;
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.oneof(fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.integer({ min: Math.round(first), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) })), (zone, instant) => {
        expect(utcToWallClock(instant, zone)).toEqual(luxonUtcToWallClock(instant, zone));
        expect(zoneOffset(zone, instant)).toBe(IANAZone.create(zone).offset(instant));
      }),
      { numRuns: 3000 },
    );
  });

  it("for ISO instants with an offset, valid or not", () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"));
    const instant = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
        two(13),
        two(32),
        fc.constantFrom("T", "t"),
        two(25),
        two(61),
        fc.option(fc.tuple(two(61), fc.option(fc.integer({ min: 0, max: 999 }).chain((n) => fc.constantFrom(String(n), String(n).padStart(3, "0")))))),
        fc.oneof(fc.constantFrom("Z", "z"), fc.tuple(fc.constantFrom("+", "-"), two(14), two(59)).map(([s, h, m]) => `${s}${h}:${m}`)),
      )
      .map(([y, mo, d, t, h, mi, sec, zone]) => `${y}-${mo}-${d}${t}${h}:${mi}${sec ? `:${sec[0]}${sec[1] !== null ? `.${sec[1]}` : ""}` : ""}${zone}`);
    fc.assert(
      fc.property(instant, (value) => {
        const dt = DateTime.fromISO(value, { setZone: true });
        expect(parseOffsetInstant(value), value).toBe(dt.isValid ? dt.toMillis() : null);
      }),
      { numRuns: 5000 },
    );
    expect(parseOffsetInstant("2026-12-01T24:00:00+01:00")).toBe(Date.parse("2026-12-01T23:00:00Z"));
    expect(parseOffsetInstant("2026-12-01T14:00:00.57Z")).toBe(DateTime.fromISO("2026-12-01T14:00:00.57Z").toMillis());
  });
});

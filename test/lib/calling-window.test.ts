import { describe, expect, it } from "vitest";
import { describeWindow, isWithinWindow, openingAtOrAfter, type CallingWindow } from "@/lib/calling-window";

const NY = "America/New_York";
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const windowOf = (start: string, end: string, days = EVERY_DAY, timezone = NY): CallingWindow => ({ timezone, start, end, days });
const at = (iso: string) => Date.parse(iso);
const opening = (window: CallingWindow, iso: string) => {
  const next = openingAtOrAfter(window, at(iso));
  return next === null ? null : new Date(next).toISOString();
};

describe("calling window", () => {
  const office = windowOf("09:00", "19:00");

  it("is open from the start up to, not including, the end, in the agency's timezone", () => {
    // 2026-12-01 is in EST (UTC-5): 09:00 is 14:00Z, 19:00 is 00:00Z the next day.
    expect(isWithinWindow(office, at("2026-12-01T14:00:00.000Z"))).toBe(true);
    expect(isWithinWindow(office, at("2026-12-01T23:59:59.999Z"))).toBe(true);
    expect(isWithinWindow(office, at("2026-12-02T00:00:00.000Z"))).toBe(false);
    expect(isWithinWindow(office, at("2026-12-01T13:59:59.999Z"))).toBe(false);
  });

  it("gives the instant itself when open, else the next opening", () => {
    expect(opening(office, "2026-12-01T15:30:00.000Z")).toBe("2026-12-01T15:30:00.000Z");
    expect(opening(office, "2026-12-01T05:52:00.000Z")).toBe("2026-12-01T14:00:00.000Z");
    expect(opening(office, "2026-12-02T00:05:00.000Z")).toBe("2026-12-02T14:00:00.000Z");
  });

  it("runs a window whose end is before its start past midnight", () => {
    const night = windowOf("22:00", "02:00");
    expect(isWithinWindow(night, at("2026-12-02T03:30:00.000Z"))).toBe(true); // 22:30 Dec 1
    expect(isWithinWindow(night, at("2026-12-02T06:59:00.000Z"))).toBe(true); // 01:59 Dec 2
    expect(isWithinWindow(night, at("2026-12-02T07:00:00.000Z"))).toBe(false); // 02:00 Dec 2
    expect(opening(night, "2026-12-02T07:00:00.000Z")).toBe("2026-12-03T03:00:00.000Z"); // 22:00 Dec 2
    expect(opening(night, "2026-12-01T20:00:00.000Z")).toBe("2026-12-02T03:00:00.000Z");
  });

  it("skips days off, and a past-midnight window belongs to the day it opens", () => {
    const weekdays = windowOf("09:00", "19:00", [1, 2, 3, 4, 5]);
    // Friday 2026-12-04 19:30 local -> Monday 2026-12-07 09:00 local.
    expect(opening(weekdays, "2026-12-05T00:30:00.000Z")).toBe("2026-12-07T14:00:00.000Z");
    expect(opening(weekdays, "2026-12-06T16:00:00.000Z")).toBe("2026-12-07T14:00:00.000Z");

    const fridayNight = windowOf("22:00", "02:00", [5]);
    // Saturday 01:00 local is still Friday's window; Saturday 22:00 is not a window.
    expect(isWithinWindow(fridayNight, at("2026-12-05T06:00:00.000Z"))).toBe(true);
    expect(isWithinWindow(fridayNight, at("2026-12-06T03:30:00.000Z"))).toBe(false);
    expect(opening(fridayNight, "2026-12-05T08:00:00.000Z")).toBe("2026-12-12T03:00:00.000Z");
  });

  it("follows daylight saving time: the opening is 09:00 local on both sides of the change", () => {
    // 2027-03-14: New York springs forward at 02:00 (EST UTC-5 -> EDT UTC-4).
    expect(opening(office, "2027-03-14T00:30:00.000Z")).toBe("2027-03-14T13:00:00.000Z");
    expect(opening(office, "2027-03-13T12:00:00.000Z")).toBe("2027-03-13T14:00:00.000Z");
    // 2026-11-01: falls back at 02:00 (EDT -> EST); the day's window closes at 19:00 EST.
    expect(opening(office, "2026-11-01T12:30:00.000Z")).toBe("2026-11-01T14:00:00.000Z");
    expect(isWithinWindow(office, at("2026-11-01T23:59:00.000Z"))).toBe(true);
  });

  it("treats a window swallowed by the spring-forward gap as closed that day, and a fall-back window as its real length", () => {
    const gap = windowOf("02:00", "03:00");
    expect(opening(gap, "2027-03-14T06:00:00.000Z")).toBe("2027-03-15T06:00:00.000Z");
    const overlap = windowOf("01:00", "02:00");
    // 01:00 EDT (05:00Z) to 02:00 EST (07:00Z): the repeated hour is inside.
    expect(isWithinWindow(overlap, at("2026-11-01T06:30:00.000Z"))).toBe(true);
    expect(isWithinWindow(overlap, at("2026-11-01T07:00:00.000Z"))).toBe(false);
  });

  it("is always open from 00:00 to 24:00", () => {
    const always = windowOf("00:00", "24:00");
    for (const iso of ["2026-12-01T05:00:00.000Z", "2027-03-14T07:30:00.000Z", "2026-11-01T06:30:00.000Z", "2026-12-31T23:59:59.999Z"]) {
      expect(opening(always, iso), iso).toBe(iso);
    }
  });

  it("never opens without days", () => {
    expect(openingAtOrAfter(windowOf("09:00", "19:00", []), at("2026-12-01T15:00:00.000Z"))).toBeNull();
  });

  it("describes itself as our documented message names it, with the days when not every day", () => {
    expect(describeWindow(windowOf("09:00", "19:00"))).toBe("09:00-19:00 America/New_York");
    expect(describeWindow(windowOf("22:00", "02:00", [5, 1], "Europe/Berlin"))).toBe("22:00-02:00 Europe/Berlin on Monday, Friday");
  });
});

import { describe, expect, it } from "vitest";
import { utcToWallClock, wallClockToUtc } from "@/lib/zoned-time";

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

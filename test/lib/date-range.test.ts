import { describe, expect, it } from "vitest";
import { dateRangeQuery, inclusiveDays, MAX_RANGE_DAYS, parseIsoDate } from "@/lib/date-range";

const INVALID_FORMAT = "Invalid date range. Use YYYY-MM-DD for from and to.";
const INVALID_SPAN = "Date range must be between 1 and 90 days inclusive.";

const required = dateRangeQuery({ required: true });
const optional = dateRangeQuery({ required: false });

function messagesOf(result: ReturnType<typeof required.safeParse>) {
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe("parseIsoDate", () => {
  it("reads a real calendar date as UTC midnight", () => {
    expect(parseIsoDate("2026-02-28")).toBe(Date.UTC(2026, 1, 28));
    expect(parseIsoDate("2028-02-29")).toBe(Date.UTC(2028, 1, 29));
  });

  it.each(["2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-32"])(
    "rejects the impossible date %s",
    (value) => expect(parseIsoDate(value)).toBeNull(),
  );

  it.each(["2026-1-01", "26-01-01", "2026/01/01", "20260101", "2026-01-01T00:00:00Z", " 2026-01-01", "", "tomorrow"])(
    "rejects the non-YYYY-MM-DD value %j",
    (value) => expect(parseIsoDate(value)).toBeNull(),
  );
});

describe("inclusiveDays", () => {
  it("counts both ends: the same day is one day", () => {
    const day = parseIsoDate("2026-03-01")!;
    expect(inclusiveDays(day, day)).toBe(1);
    expect(inclusiveDays(day, parseIsoDate("2026-03-02")!)).toBe(2);
  });

  it("is not thrown off by a DST change (dates are UTC)", () => {
    expect(inclusiveDays(parseIsoDate("2026-03-01")!, parseIsoDate("2026-03-31")!)).toBe(31);
  });
});

describe("dateRangeQuery (required)", () => {
  it("accepts the same day as a one-day range", () => {
    expect(required.safeParse({ from: "2026-12-01", to: "2026-12-01" }).success).toBe(true);
  });

  it("accepts exactly 90 days inclusive", () => {
    // 2026-01-01 .. 2026-03-31 is 31 + 28 + 31 = 90 days.
    expect(MAX_RANGE_DAYS).toBe(90);
    expect(required.safeParse({ from: "2026-01-01", to: "2026-03-31" }).success).toBe(true);
  });

  it("rejects 91 days with the specification's message", () => {
    const result = required.safeParse({ from: "2026-01-01", to: "2026-04-01" });
    expect(messagesOf(result)).toEqual([INVALID_SPAN]);
  });

  it("rejects `to` before `from` with the specification's message", () => {
    const result = required.safeParse({ from: "2026-03-02", to: "2026-03-01" });
    expect(messagesOf(result)).toEqual([INVALID_SPAN]);
  });

  it("rejects an impossible date (2026-02-30) with the format message", () => {
    expect(messagesOf(required.safeParse({ from: "2026-02-01", to: "2026-02-30" }))).toEqual([INVALID_FORMAT]);
    expect(messagesOf(required.safeParse({ from: "2026-02-30", to: "2026-03-01" }))).toEqual([INVALID_FORMAT]);
  });

  it.each([
    { from: "2026/01/01", to: "2026-01-10" },
    { from: "2026-01-01", to: "01-10-2026" },
    { from: "2026-01-01T00:00:00Z", to: "2026-01-10" },
    { from: "", to: "2026-01-10" },
  ])("rejects the wrong format %j with the specification's message", (query) => {
    expect(messagesOf(required.safeParse(query))).toEqual([INVALID_FORMAT]);
  });

  it("rejects a missing or non-string bound with the format message", () => {
    expect(messagesOf(required.safeParse({ to: "2026-01-10" }))).toEqual([INVALID_FORMAT]);
    expect(messagesOf(required.safeParse({ from: "2026-01-01" }))).toEqual([INVALID_FORMAT]);
    expect(messagesOf(required.safeParse({ from: ["2026-01-01"], to: "2026-01-10" }))).toEqual([INVALID_FORMAT]);
  });

  it("names the offending bound in the issue path", () => {
    const result = required.safeParse({ from: "2026-01-01", to: "nope" });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["to"]);
  });
});

describe("dateRangeQuery (optional)", () => {
  it("accepts neither bound", () => {
    expect(optional.safeParse({}).success).toBe(true);
  });

  it("accepts a valid pair", () => {
    expect(optional.safeParse({ from: "2026-12-01", to: "2026-12-30" }).success).toBe(true);
  });

  it("rejects one bound without the other", () => {
    expect(messagesOf(optional.safeParse({ from: "2026-12-01" }))).toEqual([INVALID_FORMAT]);
    expect(messagesOf(optional.safeParse({ to: "2026-12-01" }))).toEqual([INVALID_FORMAT]);
  });

  it("still enforces the 90-day span", () => {
    expect(messagesOf(optional.safeParse({ from: "2026-01-01", to: "2026-04-01" }))).toEqual([INVALID_SPAN]);
  });
});

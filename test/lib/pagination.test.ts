import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, offsetOf, paginationOf, paginationQuery } from "@/lib/pagination";

describe("paginationQuery", () => {
  it("defaults to page 1 and limit 20", () => {
    expect(DEFAULT_PAGE_SIZE).toBe(20);
    expect(paginationQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it("coerces query strings to integers", () => {
    expect(paginationQuery.parse({ page: "3", limit: "50" })).toEqual({ page: 3, limit: 50 });
  });

  it("accepts the bounds 1 and 100", () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(paginationQuery.parse({ limit: "1" }).limit).toBe(1);
    expect(paginationQuery.parse({ limit: "100" }).limit).toBe(100);
  });

  it.each(["0", "101", "-1", "1.5", "abc", "1e3", "0x10", " 5", ""])("rejects limit=%s", (limit) => {
    const result = paginationQuery.safeParse({ limit });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["limit"]);
    expect(result.error!.issues[0]!.message).toBe("limit must be a whole number from 1 to 100");
  });

  it.each(["0", "-1", "2.5", "x", "1000001"])("rejects page=%s", (page) => {
    const result = paginationQuery.safeParse({ page });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["page"]);
  });

  it("rejects array-valued parameters", () => {
    expect(paginationQuery.safeParse({ limit: ["1", "2"] }).success).toBe(false);
  });
});

describe("offsetOf and paginationOf", () => {
  it("turns a page into a row offset", () => {
    expect(offsetOf({ page: 1, limit: 20 })).toBe(0);
    expect(offsetOf({ page: 3, limit: 25 })).toBe(50);
  });

  it("echoes page and limit with the total", () => {
    expect(paginationOf({ page: 2, limit: 10 }, 42)).toEqual({ page: 2, limit: 10, total: 42 });
  });
});

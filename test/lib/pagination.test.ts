import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, listPage, MAX_PAGE_SIZE, pageOf, paginationQuery } from "@/lib/pagination";

describe("paginationQuery", () => {
  it("defaults to limit 20, the page left to the cursor or page 1", () => {
    expect(DEFAULT_PAGE_SIZE).toBe(20);
    expect(paginationQuery.parse({})).toEqual({ limit: 20 });
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

describe("listPage and pageOf", () => {
  const binding = "list\nagency\n[]";

  it("turns a page into a row offset, reading one row more than the page", async () => {
    expect(await listPage({ limit: 20 }, binding, 2, undefined)).toMatchObject({ page: 1, limit: 20, offset: 0, read: 21 });
    expect(await listPage({ page: 3, limit: 25 }, binding, 2, undefined)).toMatchObject({ page: 3, offset: 50, read: 26 });
  });

  it("mints a cursor only when a row beyond the page was read, and opens it for the same binding only", async () => {
    const asked = await listPage({ page: 2, limit: 2 }, binding, 1, "pepper");
    const last = await pageOf(asked, [["a"], ["b"]], 4, (row) => row, "pepper");
    expect(last.pagination).toEqual({ page: 2, limit: 2, total: 4, next_cursor: null });
    const more = await pageOf(asked, [["a"], ["b"], ["c"]], 5, (row) => row, "pepper");
    expect(more.rows).toEqual([["a"], ["b"]]);
    const cursor = more.pagination.next_cursor!;
    expect(await listPage({ limit: 2, cursor }, binding, 1, "pepper")).toMatchObject({ page: 3, offset: 0, after: ["b"], total: 5 });
    await expect(listPage({ limit: 2, cursor }, `${binding}x`, 1, "pepper")).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(listPage({ limit: 2, cursor }, binding, 1, "other pepper")).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(listPage({ limit: 2, cursor }, binding, 2, "pepper")).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(listPage({ page: 1, limit: 2, cursor }, binding, 1, "pepper")).rejects.toMatchObject({ code: "validation_error" });
  });
});

import { describe, expect, it } from "vitest";
import { sealCursor } from "@/lib/cursor";
import { tokenPepperMessages } from "@/lib/token-pepper";
import { DEFAULT_PAGE_SIZE, listPage, MAX_PAGE, MAX_PAGE_SIZE, pageOf, paginationQuery } from "@/lib/pagination";

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
    expect(await listPage({ limit: 20 }, binding, 2, "pepper")).toMatchObject({ page: 1, limit: 20, offset: 0, read: 21 });
    expect(await listPage({ page: 3, limit: 25 }, binding, 2, "pepper")).toMatchObject({ page: 3, offset: 50, read: 26 });
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

  it("never seals or opens a cursor without a pepper: 503 not_configured, not an unkeyed hash", async () => {
    const asked = await listPage({ page: 1, limit: 1 }, binding, 1, "pepper");
    const sealed = (await pageOf(asked, [["a"], ["b"]], 2, (row) => row, "pepper")).pagination.next_cursor!;
    for (const pepper of ["", "  "]) {
      const refused = { code: "not_configured", status: 503, message: tokenPepperMessages.missing };
      await expect(pageOf(asked, [["a"], ["b"]], 2, (row) => row, pepper)).rejects.toMatchObject(refused);
      await expect(listPage({ limit: 1, cursor: sealed }, binding, 1, pepper)).rejects.toMatchObject(refused);
    }
  });

  it(`issues no cursor past page ${MAX_PAGE.toLocaleString("en-US")}, the largest page, and refuses one that names a later page`, async () => {
    expect(MAX_PAGE).toBe(1_000_000);
    // The last page a walk reaches: more rows follow, yet no cursor leads past it (page mode stops there too).
    const last = await listPage({ page: MAX_PAGE, limit: 1 }, binding, 1, "pepper");
    expect((await pageOf(last, [["a"], ["b"]], 2_000_000, (row) => row, "pepper")).pagination).toEqual({ page: MAX_PAGE, limit: 1, total: 2_000_000, next_cursor: null });
    // The page before it still leads to it.
    const before = await listPage({ page: MAX_PAGE - 1, limit: 1 }, binding, 1, "pepper");
    const toLast = (await pageOf(before, [["a"], ["b"]], 2_000_000, (row) => row, "pepper")).pagination.next_cursor!;
    expect(await listPage({ limit: 1, cursor: toLast }, binding, 1, "pepper")).toMatchObject({ page: MAX_PAGE, after: ["a"] });
    // A well-sealed cursor naming a page past the maximum (as no version of this API issues) is 400 invalid_cursor.
    const beyond = await sealCursor({ page: MAX_PAGE + 1, total: 2_000_000, after: ["b"] }, binding, "pepper");
    await expect(listPage({ limit: 1, cursor: beyond }, binding, 1, "pepper")).rejects.toMatchObject({ code: "invalid_cursor", status: 400 });
  });
});

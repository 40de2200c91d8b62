import { z } from "@hono/zod-openapi";
import type { KeyValue, PageWindow } from "@/db/list-order";
import { boundedInt, countInt } from "@/lib/bounded";
import { openCursor, sealCursor } from "@/lib/cursor";
import { ApiError, badRequest } from "@/lib/errors";
import { queryInteger } from "@/lib/query";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** The largest `page`, and the last page a cursor walk reaches (docs/decisions/lists-and-bulk.md). */
export const MAX_PAGE = 1_000_000;
/** A cursor holds a few sort keys; the longest (a path version's or an appointment's) is far below this. */
export const MAX_CURSOR_LENGTH = 1000;

export const cursorMessages = {
  invalid: "cursor is not valid for this list: pass the pagination.next_cursor of a page of this same list, with the same filters",
  withPage: "Send either cursor or page, not both",
} as const;

/**
 * `page` (>= 1, default 1), `limit` (1..100, default 20) and `cursor`; out of range is 400.
 * `page` stays undefined when absent, so a cursor alone is not taken for `page=1` and a cursor.
 */
export const paginationQuery = z.object({
  page: queryInteger("page", { min: 1, max: MAX_PAGE, default: undefined, documentedDefault: 1, description: "Page number, from 1. Not with `cursor`." }),
  limit: queryInteger("limit", {
    min: 1,
    max: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Page size, 1 to ${MAX_PAGE_SIZE}.`,
  }),
  cursor: z
    .string()
    .max(MAX_CURSOR_LENGTH)
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: "The `pagination.next_cursor` of the previous page: the next page of the same list, stable while records change. Not with `page`.",
      example: "WzIsMjUwLCIyMDI2LTExLTIwVDE0OjA1OjAwLjAwMFoiLCI3YjVkIl0.4f0c2a9d1e6b7a3c8d5e9f0a1b2c3d4e",
    }),
});

export type PaginationQuery = z.infer<typeof paginationQuery>;

/** The pagination of a documented example: one record, one page. */
export const singlePageExample = { page: 1, limit: 20, total: 1, next_cursor: null } as const;

export const PaginationSchema = z
  .object({
    page: boundedInt(1, MAX_PAGE),
    limit: boundedInt(1, MAX_PAGE_SIZE),
    total: countInt().openapi({
      description: "Number of records matching the filters, over all pages. On a page reached by cursor, the number counted on the walk's first page.",
    }),
    next_cursor: z
      .string()
      .max(MAX_CURSOR_LENGTH)
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("Pagination", { example: singlePageExample });

/** What every list's description says about paging (appended by partnerRoute). */
export const PAGINATION_TEXT =
  "**Paging:** pass `pagination.next_cursor` as `cursor` until it is null to walk the whole list: each record that existed when the walk began, and kept its place " +
  "in the list's order, comes exactly once; records created meanwhile come before the walk's position in a newest-first list (see them on the next walk) and at its end " +
  "in an oldest-first one; a deep page costs what the first does. `page` and `limit` work too, but a deep `page` is slower and shifts when records are " +
  "created or deleted. `cursor` with `page` is 400; a cursor from another list, other filters or edited is 400 `invalid_cursor`. " +
  `A walk ends at page ${MAX_PAGE.toLocaleString("en-US")}, the largest \`page\`: its \`next_cursor\` is null.`;

/** How a partner keeps a copy of a list in step (the contacts list and the events list say it). */
export const SYNC_LOOP_TEXT =
  "**Keeping a copy in step:** (1) note the time `T` a few minutes before you start (events are stamped when their change is made, and a change " +
  "may commit a moment later); (2) walk the list with `limit=100`, passing each page's " +
  "`pagination.next_cursor` as `cursor` until it is null: every record that existed at `T` comes exactly once; (3) then walk " +
  "`GET /events?from=T` the same way and apply those changes oldest first (by `created_at`, skipping an `event_uuid` you have seen): " +
  "they cover everything changed since `T`, during the walk included; (4) next time, ask `GET /events?from=` a few minutes before the newest " +
  "`created_at` you have applied, skipping the `event_uuid`s you have. Events are kept 30 days: a copy older than that starts again at (1).";

/** One request's page of a list: its number and size, and the rows to read. */
export interface ListPage extends PageWindow {
  page: number;
  limit: number;
  /** What the list's cursors are bound to: the list, the agency and the filters. */
  binding: string;
}

/**
 * The page a list request asks for: by `cursor` (after the previous page's last record, the
 * total carried) or by `page` (an OFFSET). `keys` is the number of sort keys of the list's order.
 */
export async function listPage(query: { page?: number; limit: number; cursor?: string }, binding: string, keys: number, pepper: string): Promise<ListPage> {
  const { limit, cursor } = query;
  if (cursor === undefined) {
    const page = query.page ?? 1;
    return { page, limit, binding, read: limit + 1, offset: (page - 1) * limit };
  }
  if (query.page !== undefined) throw badRequest(cursorMessages.withPage, [{ field: "cursor", message: cursorMessages.withPage }]);
  const state = await openCursor(cursor, binding, keys, pepper);
  // None is issued past MAX_PAGE (pageOf); one that says so anyway is not ours.
  if (!state || state.page > MAX_PAGE) throw new ApiError("invalid_cursor", cursorMessages.invalid, { details: [{ field: "cursor", message: cursorMessages.invalid }] });
  return { page: state.page, limit, binding, read: limit + 1, offset: 0, after: state.after, total: state.total };
}

/**
 * A list response's rows (the extra row read dropped) and its pagination with the next cursor.
 * Page MAX_PAGE has none, as `page` cannot go past it either: a walk ends there.
 */
export async function pageOf<Row>(asked: ListPage, rows: Row[], total: number, keysOf: (row: Row) => KeyValue[], pepper: string) {
  const shown = rows.slice(0, asked.limit);
  const last = shown[shown.length - 1];
  const next_cursor =
    rows.length > asked.limit && last !== undefined && asked.page < MAX_PAGE
      ? await sealCursor({ page: asked.page + 1, total, after: keysOf(last) }, asked.binding, pepper)
      : null;
  return { rows: shown, pagination: { page: asked.page, limit: asked.limit, total, next_cursor } };
}

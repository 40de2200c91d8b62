import { and, asc, desc, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { commit } from "@/db/outbox";

/** A sort key's value as a cursor carries it. */
export type KeyValue = string | number | null;

/**
 * Which rows of a list one request reads: after a cursor's keys (a keyset page, whatever its
 * depth) or from an OFFSET (`page`/`limit`, docs/decisions/response-conventions.md); `read` is
 * the page size plus one, the extra row telling whether a next page exists. `total` is set
 * when a cursor already carries it, so the count is not run again.
 */
export interface PageWindow {
  read: number;
  offset: number;
  after?: KeyValue[];
  total?: number;
}

/**
 * A list's order: its sort columns, all in one direction, the record id last as tie-breaker
 * (docs/decisions/lists-and-bulk.md). Keyed by the row property each column fills, so the keys
 * of a page's last row become the next cursor.
 */
export function listOrder<const Keys extends Record<string, SQLiteColumn>>(direction: "asc" | "desc", columns: Keys) {
  const entries = Object.entries(columns);
  const list = sql.join(entries.map(([, column]) => sql`${column}`), sql`, `);
  // A row value comparison: SQLite seeks the list's index (which ends with these columns) to it.
  const beyond = (values: SQL[]) => sql`(${list}) ${direction === "asc" ? sql`>` : sql`<`} (${sql.join(values, sql`, `)})`;
  return {
    size: entries.length,
    orderBy: entries.map(([, column]) => (direction === "asc" ? asc(column) : desc(column))),
    /** `where` narrowed to the rows after the window's cursor, if it has one. */
    where: (window: PageWindow, where?: SQL) => (window.after ? and(where, beyond(window.after.map((value) => sql`${value}`))) : where),
    /** The cursor condition with placeholders `after0`, `after1`, ... for a compiled query. */
    placeholders: () => beyond(entries.map((_, i) => sql`${sql.placeholder(`after${i}`)}`)),
    bind: (after: KeyValue[]) => Object.fromEntries(after.map((value, i) => [`after${i}`, value])),
    keysOf: (row: { [K in keyof Keys]: unknown }) => entries.map(([key]) => row[key] as KeyValue),
  };
}

export type ListOrder = ReturnType<typeof listOrder>;

/**
 * A page's rows and its count in one round trip, or the rows alone when the window already
 * knows the total (a cursor page).
 */
export async function readListPage<Row>(
  db: Db,
  window: PageWindow,
  rows: BatchItem<"sqlite"> & PromiseLike<Row[]>,
  count: BatchItem<"sqlite"> & PromiseLike<{ total: number }[]>,
): Promise<{ rows: Row[]; total: number }> {
  if (window.total !== undefined) return { rows: await rows, total: window.total };
  const [page, totals] = (await commit(db, [rows, count])) as [Row[], { total: number }[]];
  return { rows: page, total: totals[0]?.total ?? 0 };
}

import { fillPlaceholders, getTableColumns, sql, type Query, type SQLWrapper } from "drizzle-orm";
import { QueryBuilder, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";

const builder = new QueryBuilder();

/** A compiled query with its values: SQL and parameters, ready to run (see readPage, readRows). */
export interface BoundQuery extends Query {
  toSQL(): Query;
}

/**
 * A read written with Drizzle's query builder and `sql.placeholder()`, turned into SQL once
 * per isolate (per shape) instead of on every request: building the SQL is most of what an
 * ORM read costs in CPU. `shape` names which optional conditions a call uses (a list with or
 * without a filter), so each variant is built once; the values fill its placeholders.
 */
export function compiledQuery<Values extends Record<string, unknown>, Shape extends string = "">(
  build: (qb: QueryBuilder, shape: Shape) => { toSQL(): Query },
) {
  const built = new Map<Shape, Query>();
  return (values: Values, shape = "" as Shape): BoundQuery => {
    let query = built.get(shape);
    if (!query) {
      query = build(builder, shape).toSQL();
      built.set(shape, query);
    }
    const bound = { sql: query.sql, params: fillPlaceholders(query.params, values) };
    return { ...bound, toSQL: () => bound };
  };
}

type Rows = D1Result<Record<string, unknown>>;

// The D1 session under a request's Drizzle client (the bench's rows-read recorder wraps it too).
const d1Of = (db: Db): Pick<D1DatabaseSession, "prepare" | "batch"> => db.$client;
const prepared = (db: Db, query: BoundQuery) => d1Of(db).prepare(query.sql).bind(...query.params);

/** One compiled query's rows as D1 returns them. */
export const readRows = (db: Db, query: BoundQuery): Promise<Rows> => prepared(db, query).all();

/** `count(*)` named `total`, for the count of a page (see readPage). */
export const countAll = () => sql<number>`count(*)`.as("total");
/** A column's value named `total`, for a maintained count (record_counts). */
export const totalFrom = (column: SQLWrapper) => sql<number>`${column}`.as("total");

/**
 * A page and its count (a query of one row with `total`) in one D1 round trip, the page
 * decoded; or the page alone when the count is already known (a cursor page carries it).
 */
export async function readPage<Row>(db: Db, decode: (result: Rows | undefined) => Row[], page: BoundQuery, count: BoundQuery | number) {
  if (typeof count === "number") return { rows: decode(await readRows(db, page)), total: count };
  const [rows, totals] = await d1Of(db).batch<Record<string, unknown>>([prepared(db, page), prepared(db, count)]);
  return { rows: decode(rows), total: Number(totals?.results[0]?.total ?? 0) };
}

/**
 * Rows of `table` as D1 returns them (keyed by column name, JSON columns as text), decoded
 * into Drizzle's row type with a plan made once per table: one pass per row, where Drizzle's
 * own batch path turns each row into an array and back into an object.
 */
export function rowDecoder<T extends SQLiteTable>(table: T): (result: Rows | undefined) => T["$inferSelect"][] {
  const plan = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, name: column.name, column }));
  const decode = (record: Record<string, unknown>) => {
    const row: Record<string, unknown> = {};
    for (const { key, name, column } of plan) {
      const value = record[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T["$inferSelect"];
  };
  return (result) => (result?.results ?? []).map(decode);
}

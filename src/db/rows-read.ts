/**
 * Benchmark instrumentation: counts D1 rows read by one request, from D1's own result
 * metadata. Only active when the BENCH_METRICS var is "on" and the request asks for it
 * (`X-Bench-Rows-Read: 1`); production never sets the var.
 *
 * Drizzle reads selects through `raw()`, which returns no metadata, so those statements are
 * executed once more with `all()` after the response is built to read their `rows_read`.
 * Writes that return rows through `raw()` (INSERT ... RETURNING) are not re-run and count as 0.
 */
type Bound = { sql: string; params: unknown[] };

export interface RowsReadRecorder {
  session: D1DatabaseSession;
  /** Statements and batches sent to D1: each is one round trip. */
  roundTrips(): number;
  /** SQL statements sent to D1, counting each statement of a batch. */
  statements(): number;
  /** Rows written by the statements whose metadata D1 returns (batches, `run`, `all`), triggers' writes included. */
  written(): number;
  total(): Promise<number>;
}

export function recordRowsRead(session: D1DatabaseSession, db: D1Database): RowsReadRecorder {
  let direct = 0;
  let written = 0;
  let trips = 0;
  let statements = 0;
  const rerun: Bound[] = [];
  const real = new WeakMap<object, D1PreparedStatement>();
  const isSelect = (sql: string) => /^\s*(select|with)\b/i.test(sql);

  const wrap = (stmt: D1PreparedStatement, bound: Bound): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...params: unknown[]) => wrap(target.bind(...params), { sql: bound.sql, params });
        if (prop === "all" || prop === "run") {
          return async () => {
            trips++;
            statements++;
            const result = await target[prop]();
            direct += result.meta?.rows_read ?? 0;
            written += result.meta?.rows_written ?? 0;
            return result;
          };
        }
        if (prop === "raw" || prop === "first") {
          return (...args: unknown[]) => {
            trips++;
            statements++;
            if (isSelect(bound.sql)) rerun.push(bound);
            return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(proxy, stmt);
    return proxy;
  };

  const proxied = new Proxy(session, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), { sql, params: [] });
      if (prop === "batch") {
        return async (batch: D1PreparedStatement[]) => {
          trips++;
          statements += batch.length;
          const results = await target.batch(batch.map((s) => real.get(s) ?? s));
          for (const r of results) {
            direct += r.meta?.rows_read ?? 0;
            written += r.meta?.rows_written ?? 0;
          }
          return results;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

  return {
    session: proxied,
    roundTrips: () => trips,
    statements: () => statements,
    written: () => written,
    async total() {
      let rows = direct;
      for (const { sql, params } of rerun) rows += (await db.prepare(sql).bind(...params).all()).meta.rows_read ?? 0;
      return rows;
    },
  };
}

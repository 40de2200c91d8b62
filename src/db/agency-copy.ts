import { sql, type AnyColumn } from "drizzle-orm";
import { agencyTables, type AgencyTable } from "./agency-tables";

/**
 * The data side of moving an agency between shards: the write fence, the copy, the count
 * check and the purge. Plain SQL on the two D1 databases; the order of the steps, and what the
 * API does meanwhile, is src/domain/agencies/move-agency.ts.
 */

/**
 * Rows of agencies no move has fenced off, for the jobs that change many agencies' rows in one
 * statement: a fenced row would abort the whole statement, and with it every other agency's.
 */
export const notFrozen = (agencyColumn: AnyColumn) => sql`${agencyColumn} NOT IN (SELECT agency_id FROM agency_freezes)`;

/**
 * How long one statement of a move may hold its database: D1 runs a database's statements one at
 * a time, so every other agency's query on the shard waits behind it. A chunk's rows follow what
 * the last chunk's write took (D1 reports each statement's SQL time), within these bounds, and
 * halve while a chunk's JSON is too big for D1 (2 MB per value).
 */
const STATEMENT_BUDGET_MS = 10;
const FIRST_CHUNK_ROWS = 100;
const MAX_CHUNK_ROWS = 1_000;
const MIN_CHUNK_ROWS = 1;

/** The SQL time D1 reports for a statement, in milliseconds. */
const sqlMs = (meta: D1Meta) => (meta as D1Meta & { timings?: { sql_duration_ms?: number } }).timings?.sql_duration_ms ?? meta.duration ?? 0;

/** The next chunk's rows, after `rows` rows took `tookMs`: scaled to the budget, at most doubled. */
function nextChunkRows(rows: number, tookMs: number) {
  const scaled = tookMs > 0 ? Math.floor((rows * STATEMENT_BUDGET_MS) / tookMs) : rows * 2;
  return Math.max(MIN_CHUNK_ROWS, Math.min(MAX_CHUNK_ROWS, rows * 2, scaled));
}

const quote = (name: string) => `"${name}"`;

/** Fences off the agency's writes on this database (`moving`), or marks the old copy's shard (`moved`). */
export const freezeAgency = (d1: D1Database, agencyId: string, state: "moving" | "moved", now: string) =>
  d1
    .prepare("INSERT INTO agency_freezes (agency_id, state, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (agency_id) DO UPDATE SET state = excluded.state")
    .bind(agencyId, state, now)
    .run();

/** Lifts the fence: writes of the agency go through again on this database. */
export const unfreezeAgency = (d1: D1Database, agencyId: string) => d1.prepare("DELETE FROM agency_freezes WHERE agency_id = ?1").bind(agencyId).run();

/**
 * Lets the Worker's other events run, for `ms`. Under `wrangler dev` every D1 database is an
 * object in the Worker's own process: a copy whose statements answer at once never leaves the
 * event loop idle, and the process would take no other request until the move ended (every
 * agency's requests, even /health, were held for the length of a move). A timer makes the loop
 * look for network events. Deployed, D1 is across the network, and this costs a millisecond.
 */
const yieldToOtherRequests = (ms = 1) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const isTooBig = (error: unknown) => /too big|SQLITE_TOOBIG|too large/i.test(String((error as Error)?.message ?? error));

/** Where a copy has got to: the table (its index in `agencyTables`), the last source rowid copied of it, and the next chunk's rows. */
export interface CopyCursor {
  table: number;
  after: number;
  rows: number;
}

export const COPY_START: CopyCursor = { table: 0, after: 0, rows: FIRST_CHUNK_ROWS };

/**
 * The two statements that copy a chunk of one table: the source hands the chunk over as one JSON
 * value, which the target unpacks with `json_each`, so a chunk is one statement whatever its
 * width (D1 binds at most 100 parameters per statement) and no row is decoded in the Worker.
 * The target skips a row whose primary key it already has: a copy step run again after a crash
 * finds its rows there and copies nothing twice. A row another agency holds under the same key
 * is skipped too, and the count check after the copy then fails the move.
 */
function copyStatements(table: AgencyTable) {
  const columns = table.columns.map(quote).join(", ");
  const value = (column: string) => `value ->> ${table.columns.indexOf(column)}`;
  const present = table.primaryKey.map((column) => `existing.${quote(column)} = ${value(column)}`).join(" AND ");
  return {
    read: `SELECT json_group_array(json_array(${columns})) AS rows, count(*) AS n, max(rid) AS last
     FROM (SELECT rowid AS rid, ${columns} FROM ${quote(table.name)} WHERE ${table.copyScope ?? table.scope} AND rowid > ?2 ORDER BY rowid LIMIT ?3)`,
    write: `INSERT INTO ${quote(table.name)} (${columns})
     SELECT ${table.columns.map(value).join(", ")} FROM json_each(?1)
     WHERE NOT EXISTS (SELECT 1 FROM ${quote(table.name)} AS existing WHERE ${present})`,
  };
}

const copySql = agencyTables.map(copyStatements);

/**
 * Copies up to `maxRows` of the agency's rows from `cursor` on, table after table in the order
 * of `agencyTables`, each table in rowid order. Returns where the next call starts, the rows it
 * read (each now on the target, whether written by this call or found there) and whether every
 * table is done. Safe to run again from the same cursor.
 */
export async function copyRows(source: D1Database, target: D1Database, agencyId: string, cursor: CopyCursor, maxRows: number) {
  let { table, after, rows: limit } = cursor;
  let copied = 0;
  while (table < agencyTables.length && copied < maxRows) {
    const sql = copySql[table]!;
    const want = Math.min(limit, maxRows - copied);
    let chunk: { rows: string; n: number; last: number | null } | undefined;
    try {
      chunk = (await source.prepare(sql.read).bind(agencyId, after, want).run<{ rows: string; n: number; last: number | null }>()).results[0];
      await yieldToOtherRequests();
    } catch (error) {
      if (!isTooBig(error) || limit <= MIN_CHUNK_ROWS) throw error;
      limit = Math.max(MIN_CHUNK_ROWS, Math.floor(limit / 2));
      continue;
    }
    if (chunk && chunk.n > 0 && chunk.last !== null) {
      const written = await target.prepare(sql.write).bind(chunk.rows).run();
      copied += chunk.n;
      after = chunk.last;
      limit = nextChunkRows(chunk.n, sqlMs(written.meta));
    }
    if (!chunk || chunk.n < want) {
      table += 1;
      after = 0;
    }
    await yieldToOtherRequests();
  }
  return { next: { table, after, rows: limit }, copied, done: table >= agencyTables.length };
}

/**
 * The agency's rows per table, in one statement: those a move copies (`copy`), or every row the
 * agency has there (`all`).
 */
export async function countAgencyRows(d1: D1Database, agencyId: string, which: "copy" | "all"): Promise<Record<string, number>> {
  const counts = agencyTables.map((t) => `(SELECT count(*) FROM ${quote(t.name)} WHERE ${which === "copy" ? (t.copyScope ?? t.scope) : t.scope}) AS ${quote(t.name)}`);
  const row = await d1.prepare(`SELECT ${counts.join(", ")}`).bind(agencyId).first<Record<string, number>>();
  return row ?? {};
}

/** Where a purge has got to: the table (its position in the reverse of `agencyTables`) and the next chunk's rows. */
export interface PurgeCursor {
  table: number;
  rows: number;
}

export const PURGE_START: PurgeCursor = { table: 0, rows: FIRST_CHUNK_ROWS };

/**
 * Deletes up to `maxRows` of the agency's rows from this database, children first, from
 * `cursor` on. Each chunk runs in a batch that lifts the agency's fence for itself alone
 * (`purging`, the deletes, `moved` again; a batch is one transaction, so no other write ever sees
 * the fence down); on a database without a fence for the agency those two statements change
 * nothing. The derived rows go with their sources (the triggers of contacts and calls), and the
 * agency's counters once every table is empty. Returns where the next call starts and whether
 * the agency is gone; safe to run again.
 */
export async function purgeRows(d1: D1Database, agencyId: string, cursor: PurgeCursor, maxRows: number) {
  const lift = d1.prepare("UPDATE agency_freezes SET state = 'purging' WHERE agency_id = ?1").bind(agencyId);
  const restore = d1.prepare("UPDATE agency_freezes SET state = 'moved' WHERE agency_id = ?1").bind(agencyId);
  const tables = [...agencyTables].reverse();
  let { table: position, rows: limit } = cursor;
  let deleted = 0;
  while (position < tables.length && deleted < maxRows) {
    const table = tables[position]!;
    const want = Math.min(limit, maxRows - deleted);
    // RETURNING counts the table's own rows: D1's `changes` also counts what the triggers deleted.
    const remove = d1
      .prepare(`DELETE FROM ${quote(table.name)} WHERE rowid IN (SELECT rowid FROM ${quote(table.name)} WHERE ${table.scope} LIMIT ?2) RETURNING 1`)
      .bind(agencyId, want);
    const started = Date.now();
    const [, result] = await d1.batch([lift, remove, restore]);
    const took = Date.now() - started;
    const removed = result!.results.length;
    deleted += removed;
    if (removed < want) position += 1;
    else limit = nextChunkRows(removed, sqlMs(result!.meta));
    // Nobody waits for a purge (the agency lives elsewhere by then): it leaves the database to
    // the other agencies' queries for as long again as each chunk took.
    await yieldToOtherRequests(Math.max(1, took));
  }
  const done = position >= tables.length;
  if (done) await d1.prepare("DELETE FROM record_counts WHERE agency_id = ?1").bind(agencyId).run();
  return { next: { table: position, rows: limit }, deleted, done };
}

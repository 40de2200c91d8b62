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

/** Rows per copy or delete statement; halved while a chunk's JSON is too big for D1 (2 MB per value). */
const CHUNK_ROWS = 1_000;
const MIN_CHUNK_ROWS = 1;

const quote = (name: string) => `"${name}"`;

/** Fences off the agency's writes on this database (`moving`), or marks the old copy's shard (`moved`). */
export const freezeAgency = (d1: D1Database, agencyId: string, state: "moving" | "moved", now: string) =>
  d1
    .prepare("INSERT INTO agency_freezes (agency_id, state, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (agency_id) DO UPDATE SET state = excluded.state")
    .bind(agencyId, state, now)
    .run();

/** Lifts the fence: writes of the agency go through again on this database. */
export const unfreezeAgency = (d1: D1Database, agencyId: string) => d1.prepare("DELETE FROM agency_freezes WHERE agency_id = ?1").bind(agencyId).run();

const isTooBig = (error: unknown) => /too big|SQLITE_TOOBIG|too large/i.test(String((error as Error)?.message ?? error));

/**
 * Copies the agency's rows of one table, in rowid order, a chunk per round trip: the source
 * hands each chunk over as one JSON value, which the target unpacks with `json_each`, so a
 * chunk is one statement whatever its width (D1 binds at most 100 parameters per statement)
 * and no row is decoded in the Worker. Returns the rows copied.
 */
export async function copyTable(source: D1Database, target: D1Database, table: AgencyTable, agencyId: string, onChunk?: () => Promise<void>) {
  const columns = table.columns.map(quote).join(", ");
  const read = source.prepare(
    `SELECT json_group_array(json_array(${columns})) AS rows, count(*) AS n, max(rid) AS last
     FROM (SELECT rowid AS rid, ${columns} FROM ${quote(table.name)} WHERE ${table.copyScope ?? table.scope} AND rowid > ?2 ORDER BY rowid LIMIT ?3)`,
  );
  const write = target.prepare(
    `INSERT INTO ${quote(table.name)} (${columns}) SELECT ${table.columns.map((_, i) => `value ->> ${i}`).join(", ")} FROM json_each(?1)`,
  );
  let after = 0;
  let limit = CHUNK_ROWS;
  let copied = 0;
  for (;;) {
    let chunk: { rows: string; n: number; last: number | null } | null;
    try {
      chunk = await read.bind(agencyId, after, limit).first();
    } catch (error) {
      if (!isTooBig(error) || limit <= MIN_CHUNK_ROWS) throw error;
      limit = Math.max(MIN_CHUNK_ROWS, Math.floor(limit / 2));
      continue;
    }
    if (!chunk || chunk.n === 0 || chunk.last === null) return copied;
    await write.bind(chunk.rows).run();
    copied += chunk.n;
    after = chunk.last;
    await onChunk?.();
  }
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

/**
 * Deletes every row of the agency from this database, children first, in chunks. On a frozen
 * database (`fenced`) each chunk runs in a batch that lifts the fence for itself alone
 * (`purging`, the deletes, `moved` again): a batch is one transaction, so no other write ever
 * sees the fence down. The derived rows go with their sources (the triggers of contacts and
 * calls), then the agency's counters.
 */
export async function purgeAgency(d1: D1Database, agencyId: string, fenced: boolean, onChunk?: () => Promise<void>) {
  const lift = d1.prepare("UPDATE agency_freezes SET state = 'purging' WHERE agency_id = ?1").bind(agencyId);
  const restore = d1.prepare("UPDATE agency_freezes SET state = 'moved' WHERE agency_id = ?1").bind(agencyId);
  for (const table of [...agencyTables].reverse()) {
    const remove = d1.prepare(`DELETE FROM ${quote(table.name)} WHERE rowid IN (SELECT rowid FROM ${quote(table.name)} WHERE ${table.scope} LIMIT ?2)`);
    for (;;) {
      const statement = remove.bind(agencyId, CHUNK_ROWS);
      const results = fenced ? await d1.batch([lift, statement, restore]) : [await statement.run()];
      const deleted = results[fenced ? 1 : 0]!.meta.changes;
      await onChunk?.();
      if (deleted < CHUNK_ROWS) break;
    }
  }
  await d1.prepare("DELETE FROM record_counts WHERE agency_id = ?1").bind(agencyId).run();
}

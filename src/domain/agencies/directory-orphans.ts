import { and, asc, eq, exists, gt, isNull, lt, notExists, or, sql } from "drizzle-orm";
import { createDb } from "@/db/client";
import { directoryRecordTables, type DirectoryRecordKind } from "@/db/directory-records";
import { commit } from "@/db/outbox";
import { agencyDirectory, directoryRecords } from "@/db/schema";
import { directoryDb, shardDatabase } from "@/db/shards";
import type { Env } from "@/env";
import { forEachLimited } from "@/lib/for-each-limited";
import { inJsonList } from "@/db/json-list";

/**
 * Directory rows whose record never came (docs/decisions/shards-and-moves.md, "Directory rows of
 * refused creates"): a create writes the row first and removes it when the shard refuses the
 * record, so only a Worker dying between the two leaves one behind (and rows from before that
 * rule). The operator lists and purges them, a bounded slice of the directory per call.
 */

/** Rows examined per call at most: a few queries per shard, whatever the directory's size. */
export const ORPHAN_SCAN_MAX = 1000;

/**
 * A row younger than this may belong to a create still under way (its record not written yet),
 * so it is never taken for an orphan; a create's two writes are milliseconds apart.
 */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** Shards read at once: a Worker holds at most six connections open. */
const SHARDS_AT_ONCE = 4;

export type OrphanReason = "agency_missing" | "record_missing";

export interface DirectoryOrphan {
  id: string;
  kind: DirectoryRecordKind;
  agencyId: string;
  createdAt: string | null;
  reason: OrphanReason;
  /** The shard the record was looked for on (null when the directory knows no such agency). */
  shard: string | null;
}

export interface OrphanScan {
  orphans: DirectoryOrphan[];
  /** Directory rows looked at in this slice. */
  examined: number;
  /** Where the next slice starts (pass as `after`); null when this slice reached the end. */
  nextAfter: string | null;
}


/**
 * The orphans among the directory rows after `after` (by id), at most `limit` rows looked at. A
 * row is an orphan when it is older than the grace period and either its agency is unknown to the
 * directory or its record is not on the agency's shard. Agencies in the middle of a move, or
 * whose old copy is still being removed, are passed over: their records are in flux, and a later
 * call sees them settled.
 */
export async function findDirectoryOrphans(env: Env, options: { after?: string; limit: number; now: number }): Promise<OrphanScan> {
  const directory = directoryDb(env);
  const rows = await directory
    .select()
    .from(directoryRecords)
    .where(options.after ? gt(directoryRecords.id, options.after) : undefined)
    .orderBy(asc(directoryRecords.id))
    .limit(options.limit)
    .all();
  const nextAfter = rows.length === options.limit ? rows[rows.length - 1]!.id : null;
  const settledBefore = new Date(options.now - ORPHAN_GRACE_MS).toISOString();
  const candidates = rows.filter((r) => r.createdAt === null || r.createdAt < settledBefore);
  if (candidates.length === 0) return { orphans: [], examined: rows.length, nextAfter };

  const agencyIds = [...new Set(candidates.map((r) => r.agencyId))];
  const locations = new Map(
    (await directory.select().from(agencyDirectory).where(inJsonList(agencyDirectory.agencyId, agencyIds)).all()).map((l) => [l.agencyId, l]),
  );

  const orphans: DirectoryOrphan[] = [];
  const byShard = new Map<string, typeof candidates>();
  for (const row of candidates) {
    const location = locations.get(row.agencyId);
    if (!location) orphans.push({ ...row, reason: "agency_missing", shard: null });
    else if (location.movingTo === null && location.leftoverShard === null) byShard.set(location.shard, [...(byShard.get(location.shard) ?? []), row]);
  }

  await forEachLimited([...byShard.keys()], SHARDS_AT_ONCE, async (shard) => {
    const db = createDb(shardDatabase(env, shard));
    const rowsOfShard = byShard.get(shard)!;
    const present = new Set<string>();
    for (const kind of Object.keys(directoryRecordTables) as DirectoryRecordKind[]) {
      const ids = rowsOfShard.filter((r) => r.kind === kind).map((r) => r.id);
      if (ids.length === 0) continue;
      const table = directoryRecordTables[kind];
      for (const found of await db.select({ id: table.id }).from(table).where(inJsonList(table.id, ids)).all()) present.add(found.id);
    }
    for (const row of rowsOfShard) if (!present.has(row.id)) orphans.push({ ...row, reason: "record_missing", shard });
  });
  orphans.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { orphans, examined: rows.length, nextAfter };
}

/**
 * Finds the orphans of a slice as findDirectoryOrphans does and deletes them, each only if it is
 * still one when deleted: still past the grace period, and its agency still unknown, or still
 * settled on the shard its record was missing from (an agency that started or finished a move
 * meanwhile keeps its rows). Answers the rows deleted.
 */
export async function purgeDirectoryOrphans(env: Env, options: { after?: string; limit: number; now: number }): Promise<OrphanScan> {
  const scan = await findDirectoryOrphans(env, options);
  if (scan.orphans.length === 0) return scan;
  const directory = directoryDb(env);
  const settledBefore = new Date(options.now - ORPHAN_GRACE_MS).toISOString();
  const sameAgency = (o: DirectoryOrphan) => eq(agencyDirectory.agencyId, o.agencyId);
  const stillOrphan = (o: DirectoryOrphan) =>
    o.shard === null
      ? notExists(directory.select({ one: sql`1` }).from(agencyDirectory).where(sameAgency(o)))
      : exists(
          directory
            .select({ one: sql`1` })
            .from(agencyDirectory)
            .where(and(sameAgency(o), eq(agencyDirectory.shard, o.shard), isNull(agencyDirectory.movingTo), isNull(agencyDirectory.leftoverShard))),
        );
  const [first, ...rest] = scan.orphans.map((o) =>
    directory
      .delete(directoryRecords)
      .where(
        and(
          eq(directoryRecords.id, o.id),
          eq(directoryRecords.kind, o.kind),
          eq(directoryRecords.agencyId, o.agencyId),
          or(isNull(directoryRecords.createdAt), lt(directoryRecords.createdAt, settledBefore)),
          stillOrphan(o),
        ),
      )
      .returning({ id: directoryRecords.id }),
  );
  const deleted = new Set((await commit(directory, [first!, ...rest])).flat().map((r) => r.id));
  return { ...scan, orphans: scan.orphans.filter((o) => deleted.has(o.id)) };
}

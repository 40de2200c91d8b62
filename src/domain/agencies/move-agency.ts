import { and, eq, isNull } from "drizzle-orm";
import { copyTable, countAgencyRows, freezeAgency, purgeAgency, unfreezeAgency } from "@/db/agency-copy";
import { agencyTables } from "@/db/agency-tables";
import { agencyDirectory } from "@/db/schema";
import { agencyDb, agencyKeyIds, directoryDb, shardDatabase, unfinishedMoves, type AgencyLocation } from "@/db/shards";
import type { Env } from "@/env";
import { liveGrantIds } from "@/domain/auth/app-grants.repository";
import { invalidateGrant, invalidateKey } from "@/lib/auth/gate";
import { ApiError, conflict } from "@/lib/errors";
import { isoAt } from "@/lib/time";

/**
 * Moving an agency to another shard (docs/decisions/shards-and-moves.md): fence, copy,
 * verify, switch, clean up. Until the switch the old shard is the agency's only home: a move
 * that fails rolls back there, and one whose Worker died is rolled back by the cron
 * (`recoverMoves`), so the agency is always whole in one place. Writes answer 503
 * `agency_moving` meanwhile (the key gates say so before D1 is touched; the fence's triggers
 * refuse any write already on its way); reads keep working from the old copy.
 */

/** A move that has not renewed its heartbeat for this long is taken for dead and rolled back. */
export const MOVE_HEARTBEAT_TIMEOUT_MS = 120_000;

export const moveMessages = {
  sameShard: (shard: string) => `The agency already lives on shard ${shard}`,
  moving: "The agency is already being moved; wait for that move to finish",
  cleaning: "The agency's previous move is still removing its old copy; retry in a few minutes",
  failed: (shard: string, reason: string) => `The move failed and was undone; the agency stays on shard ${shard}. ${reason}`,
  verifyFailed: (table: string, source: number, copied: number) => `Verification failed: ${table} has ${source} rows on the old shard and ${copied} on the new one`,
} as const;

export interface MoveReport {
  from: string;
  to: string;
  /** Rows copied per table. */
  rows: Record<string, number>;
}

/**
 * Every key and connected app of the agency forgets its cached shard: its next request reads
 * the directory again. False when a gate could not be told (it then learns within its cache's minute).
 */
async function invalidateAgencyKeys(env: Env, agencyId: string): Promise<boolean> {
  const home = await agencyDb(env, agencyId);
  const [keyIds, grantIds] = await Promise.all([agencyKeyIds(env, agencyId), home ? liveGrantIds(home.db, agencyId) : Promise.resolve([])]);
  const results = await Promise.allSettled([...keyIds.map((id) => invalidateKey(env, id)), ...grantIds.map((id) => invalidateGrant(env, id))]);
  return results.every((r) => r.status === "fulfilled");
}

/** Marks the agency as moving to `target`, unless a move is already under way. */
async function claimMove(env: Env, location: AgencyLocation, target: string, now: number) {
  if (location.leftoverShard) throw conflict(moveMessages.cleaning);
  const claimed = await directoryDb(env)
    .update(agencyDirectory)
    .set({ movingTo: target, moveHeartbeatAt: isoAt(now) })
    .where(and(eq(agencyDirectory.agencyId, location.agencyId), eq(agencyDirectory.shard, location.shard), isNull(agencyDirectory.movingTo), isNull(agencyDirectory.leftoverShard)))
    .returning();
  if (claimed.length === 0) throw conflict(moveMessages.moving);
}

const heartbeat = (env: Env, agencyId: string, target: string) =>
  directoryDb(env)
    .update(agencyDirectory)
    .set({ moveHeartbeatAt: isoAt(Date.now()) })
    .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.movingTo, target)));

/**
 * Copies the agency from its shard to `target` and switches the directory to it. Throws a 409
 * when the agency is already on `target` or already moving, and a 500 naming the reason when
 * the move failed (after rolling it back).
 */
export async function moveAgency(env: Env, location: AgencyLocation, target: string): Promise<MoveReport> {
  const { agencyId, shard: from } = location;
  if (from === target) throw conflict(moveMessages.sameShard(target));
  const source = shardDatabase(env, from);
  const destination = shardDatabase(env, target);
  await claimMove(env, location, target, Date.now());

  const rows: Record<string, number> = {};
  try {
    await freezeAgency(source, agencyId, "moving", isoAt(Date.now()));
    if (!(await invalidateAgencyKeys(env, agencyId))) throw new Error("the agency's key gates could not all be told of the move");
    // Whatever an earlier, failed move left there, and the mark of an earlier move away.
    await purgeAgency(destination, agencyId, false);
    await unfreezeAgency(destination, agencyId);

    let chunks = 0;
    const beat = async () => {
      if (++chunks % 5 === 0) await heartbeat(env, agencyId, target);
    };
    for (const table of agencyTables) rows[table.name] = await copyTable(source, destination, table, agencyId, beat);

    const [expected, copied] = await Promise.all([countAgencyRows(source, agencyId, "copy"), countAgencyRows(destination, agencyId, "all")]);
    for (const table of agencyTables) {
      if (expected[table.name] !== copied[table.name]) throw new Error(moveMessages.verifyFailed(table.name, expected[table.name] ?? 0, copied[table.name] ?? 0));
    }

    // The heartbeat now says when the switch happened (see removeOldCopy).
    const switched = await directoryDb(env)
      .update(agencyDirectory)
      .set({ shard: target, movingTo: null, moveHeartbeatAt: isoAt(Date.now()), leftoverShard: from })
      .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.shard, from), eq(agencyDirectory.movingTo, target)))
      .returning();
    if (switched.length === 0) throw new Error("the move was rolled back meanwhile (its heartbeat had stopped)");
  } catch (error) {
    await rollBackMove(env, { ...location, movingTo: target });
    throw new ApiError("internal_error", moveMessages.failed(from, (error as Error).message));
  }

  // The agency lives on `target` now, whole. Its old copy (still fenced) goes at once when every
  // key's gate has heard of the switch; otherwise the cron deletes it once a gate's cache has
  // expired, so a gate that missed the news never reads an emptied shard.
  if (await invalidateAgencyKeys(env, agencyId)) {
    try {
      await removeOldCopy(env, agencyId, from);
    } catch {
      // Left to the cron (leftover_shard).
    }
  }
  return { from, to: target, rows };
}

/**
 * Undoes a move that did not switch: the partial copy goes, the fence lifts, the directory
 * forgets the move, and the keys read it again. Safe to run twice.
 */
export async function rollBackMove(env: Env, location: AgencyLocation) {
  const { agencyId, shard, movingTo } = location;
  if (movingTo) await purgeAgency(shardDatabase(env, movingTo), agencyId, false);
  await unfreezeAgency(shardDatabase(env, shard), agencyId);
  await directoryDb(env)
    .update(agencyDirectory)
    .set({ movingTo: null, moveHeartbeatAt: null })
    .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.shard, shard)));
  await invalidateAgencyKeys(env, agencyId);
}

/** After the switch: deletes the old copy (its fence stays, as `moved`), then clears `leftover_shard`. */
export async function removeOldCopy(env: Env, agencyId: string, from: string) {
  await purgeAgency(shardDatabase(env, from), agencyId, true);
  await directoryDb(env)
    .update(agencyDirectory)
    .set({ leftoverShard: null, moveHeartbeatAt: null })
    .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.leftoverShard, from)));
}

/**
 * The cron's part: rolls back a move whose Worker died (its heartbeat stopped), and removes the
 * old copy a finished move left (two minutes after its switch: every key's gate has read the
 * directory again by then). One agency per run, so a large purge never crowds out the rest of
 * the cron's work; the next run takes the next.
 */
export async function recoverMoves(env: Env, now: number): Promise<string | undefined> {
  const [move] = await unfinishedMoves(env, isoAt(now - MOVE_HEARTBEAT_TIMEOUT_MS));
  if (!move) return undefined;
  if (move.movingTo) {
    await rollBackMove(env, move);
    return "rolled-back";
  }
  await removeOldCopy(env, move.agencyId, move.leftoverShard!);
  return "old-copy-removed";
}

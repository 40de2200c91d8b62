import { and, eq, isNull } from "drizzle-orm";
import { copyRows, countAgencyRows, freezeAgency, PURGE_START, purgeRows, unfreezeAgency, type CopyCursor, type PurgeCursor } from "@/db/agency-copy";
import { agencyTables } from "@/db/agency-tables";
import { agencyDirectory } from "@/db/schema";
import { agencyDb, agencyKeyIds, agencyLocation, directoryDb, shardDatabase, unfinishedMoves, type AgencyLocation } from "@/db/shards";
import type { Env } from "@/env";
import { liveGrantIds } from "@/domain/auth/app-grants.repository";
import { invalidateGrant, invalidateKey } from "@/lib/auth/gate";
import { ApiError, conflict } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { MoveParams } from "@/lib/shards/move-params";
import { isoAt, nowIso } from "@/lib/time";
import { endMove, getMove, insertMove, isFinalMoveState, latestMove, recordProgress, type AgencyMove } from "./agency-moves.repository";

/**
 * Moving an agency to another shard (docs/decisions/shards-and-moves.md). `startMove` claims the
 * move in the directory and starts its Workflow (src/jobs/agency-move-workflow.ts), whose steps
 * are the functions below, each of bounded size and safe to run again: fence, copy in pages,
 * verify, switch, remove the old copy; or, when a step fails for good before the switch, roll
 * back and remove the partial copy. Until the switch the old shard is the agency's only home, so
 * the agency is always whole in one place. Writes answer 503 `agency_moving` meanwhile (the key
 * gates say so before D1 is touched; the fence's triggers refuse any write already on its way);
 * reads keep working from the old copy. The cron (`recoverMoves`) finishes what a workflow that
 * stopped for good left behind.
 */

/** A move whose heartbeat is this old, and whose workflow has stopped, is finished by the cron. */
export const MOVE_HEARTBEAT_TIMEOUT_MS = 120_000;

/** Rows a copy or purge step handles: a step's work stays bounded whatever the agency's size. */
export const MOVE_STEP_ROWS = 5_000;

/** Rows the cron deletes of a leftover copy per run, within an invocation's 1,000 D1 queries. */
const CRON_PURGE_ROWS = 20_000;

export const moveMessages = {
  sameShard: (shard: string) => `The agency already lives on shard ${shard}`,
  moving: (agencyId: string) => `The agency is already being moved; wait for that move to finish (GET /admin/v1/agencies/${agencyId} shows its progress)`,
  cleaning: (shard: string) => `The agency's previous move is still removing the copy it left on shard ${shard}; retry in a few minutes`,
  notStarted: (reason: string) => `The move could not be started and nothing was changed: ${reason}`,
  verifyFailed: (table: string, source: number, copied: number) => `Verification failed: ${table} has ${source} rows on the old shard and ${copied} on the new one`,
  undone: "The directory no longer records this move (it was undone meanwhile)",
  gatesUntold: "The agency's key gates could not all be told of the move",
  stopped: (status: string) => `The move's workflow stopped (${status}) before it finished; the cron undid the move`,
} as const;

/** A step that failed in a way no retry mends: the workflow rolls the move back at once. */
export class MoveCheckFailed extends Error {
  override name = "MoveCheckFailed";
}

/**
 * Every key and connected app of the agency forgets its cached shard: its next request reads
 * the directory again. A gate reads the directory only when told so (or when the shard it knows
 * disagrees: docs/decisions/authentication.md, "The gate keeps the key's shard"), so every change
 * to where an agency lives or whether it is moving calls this. False when a gate could not be
 * told: it then learns within its key row's minute, from the fence on the shard it knows.
 */
export async function tellGates(env: Env, agencyId: string): Promise<boolean> {
  const home = await agencyDb(env, agencyId);
  const [keyIds, grantIds] = await Promise.all([agencyKeyIds(env, agencyId), home ? liveGrantIds(home.db, agencyId) : Promise.resolve([])]);
  const results = await Promise.allSettled([...keyIds.map((id) => invalidateKey(env, id)), ...grantIds.map((id) => invalidateGrant(env, id))]);
  return results.every((r) => r.status === "fulfilled");
}

const moveRecord = (p: MoveParams) => ({ id: p.move_id, agencyId: p.agency_id });

/**
 * Claims a move of the agency to `target` and starts its workflow; returns the move's record
 * (`copying`). A 409 when the agency already lives there, is being moved, or its previous move is
 * still removing a copy; a 500 naming the reason when the workflow could not be started (the
 * claim is then undone).
 */
export async function startMove(env: Env, location: AgencyLocation, target: string): Promise<AgencyMove> {
  const { agencyId, shard: from } = location;
  if (from === target) throw conflict(moveMessages.sameShard(target));
  if (location.leftoverShard) throw conflict(moveMessages.cleaning(location.leftoverShard));
  const now = nowIso();
  const claimed = await directoryDb(env)
    .update(agencyDirectory)
    .set({ movingTo: target, moveHeartbeatAt: now })
    .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.shard, from), isNull(agencyDirectory.movingTo), isNull(agencyDirectory.leftoverShard)))
    .returning();
  if (claimed.length === 0) {
    const current = await agencyLocation(env, agencyId);
    throw conflict(current?.leftoverShard && !current.movingTo ? moveMessages.cleaning(current.leftoverShard) : moveMessages.moving(agencyId));
  }

  const id = newId();
  let move: AgencyMove;
  try {
    move = await insertMove(env, { id, agencyId, fromShard: from, toShard: target }, now);
    await env.MOVE_WORKFLOW.create({ id, params: { move_id: id, agency_id: agencyId, from, to: target } });
  } catch (error) {
    await directoryDb(env)
      .update(agencyDirectory)
      .set({ movingTo: null, moveHeartbeatAt: null })
      .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.movingTo, target)));
    // A gate that read the directory meanwhile holds `moving`: it forgets it now.
    await tellGates(env, agencyId).catch(() => false);
    const reason = (error as Error).message;
    await endMove(env, id, "failed", moveMessages.notStarted(reason)).catch(() => undefined);
    throw new ApiError("internal_error", moveMessages.notStarted(reason));
  }
  return move;
}

/** Throws unless the directory still records this move under way. */
async function assertMoving(env: Env, p: MoveParams) {
  const location = await agencyLocation(env, p.agency_id);
  if (location?.shard !== p.from || location.movingTo !== p.to) throw new MoveCheckFailed(moveMessages.undone);
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((n, c) => n + c, 0);

/**
 * Step 1: fences the agency's writes on its shard, lifts the mark an earlier move away left on
 * the target, counts what is to be copied, and tells the keys' gates. Returns the rows to copy
 * and how many of the agency's rows the target already holds (left by an interrupted move).
 */
export async function fenceMove(env: Env, p: MoveParams) {
  await assertMoving(env, p);
  const source = shardDatabase(env, p.from);
  const target = shardDatabase(env, p.to);
  await freezeAgency(source, p.agency_id, "moving", nowIso());
  await unfreezeAgency(target, p.agency_id);
  const [total, onTarget] = await Promise.all([countAgencyRows(source, p.agency_id, "copy"), countAgencyRows(target, p.agency_id, "all")]);
  await recordProgress(env, moveRecord(p), { state: "copying", rowsTotal: sum(total), rowsCopied: 0 });
  if (!(await tellGates(env, p.agency_id))) throw new Error(moveMessages.gatesUntold);
  return { rowsTotal: sum(total), rowsOnTarget: sum(onTarget) };
}

/** One page of a purge of the agency's rows from `shard`, from position `from` on (see purgeRows). */
export async function purgeStep(env: Env, p: MoveParams, shard: string, from: PurgeCursor) {
  const page = await purgeRows(shardDatabase(env, shard), p.agency_id, from, MOVE_STEP_ROWS);
  await recordProgress(env, moveRecord(p), {});
  return page;
}

/**
 * One page of the copy: up to MOVE_STEP_ROWS rows from `cursor` on. `copiedBefore` is what the
 * earlier pages copied, so the recorded progress is the same however often a page runs.
 */
export async function copyStep(env: Env, p: MoveParams, cursor: CopyCursor, copiedBefore: number) {
  const page = await copyRows(shardDatabase(env, p.from), shardDatabase(env, p.to), p.agency_id, cursor, MOVE_STEP_ROWS);
  await recordProgress(env, moveRecord(p), { rowsCopied: copiedBefore + page.copied });
  return page;
}

/** Compares the agency's row count of every table on both shards; a difference fails the move for good. */
export async function verifyMove(env: Env, p: MoveParams) {
  await recordProgress(env, moveRecord(p), { state: "verifying" });
  const [expected, copied] = await Promise.all([
    countAgencyRows(shardDatabase(env, p.from), p.agency_id, "copy"),
    countAgencyRows(shardDatabase(env, p.to), p.agency_id, "all"),
  ]);
  for (const table of agencyTables) {
    if (expected[table.name] !== copied[table.name]) throw new MoveCheckFailed(moveMessages.verifyFailed(table.name, expected[table.name] ?? 0, copied[table.name] ?? 0));
  }
}

/**
 * Points the directory at the new shard; the old one becomes the leftover to remove, its fence
 * `moved` (the agency lives elsewhere now: a gate that missed the switch finds that on the shard
 * it knows when it next reads its row, and reads the directory again). The heartbeat then says
 * when the switch happened (the cron waits two minutes past it before removing the old copy
 * itself). Done already when run again.
 */
export async function switchMove(env: Env, p: MoveParams) {
  const switched = await directoryDb(env)
    .update(agencyDirectory)
    .set({ shard: p.to, movingTo: null, moveHeartbeatAt: nowIso(), leftoverShard: p.from })
    .where(and(eq(agencyDirectory.agencyId, p.agency_id), eq(agencyDirectory.shard, p.from), eq(agencyDirectory.movingTo, p.to)))
    .returning();
  if (switched.length === 0) {
    const location = await agencyLocation(env, p.agency_id);
    if (location?.shard !== p.to || location.leftoverShard !== p.from) throw new MoveCheckFailed(moveMessages.undone);
  }
  await freezeAgency(shardDatabase(env, p.from), p.agency_id, "moved", nowIso());
  await recordProgress(env, moveRecord(p), { state: "switching" });
}

/** The directory forgets a leftover copy once it is gone. */
const forgetLeftover = (env: Env, agencyId: string, shard: string) =>
  directoryDb(env)
    .update(agencyDirectory)
    .set({ leftoverShard: null, moveHeartbeatAt: null })
    .where(and(eq(agencyDirectory.agencyId, agencyId), eq(agencyDirectory.leftoverShard, shard)));

/** The last step of a move: the old copy is gone (its shard keeps the `moved` fence). */
export async function finishMove(env: Env, p: MoveParams) {
  await forgetLeftover(env, p.agency_id, p.from);
  await endMove(env, p.move_id, "done");
}

/** The last step of a rolled-back move: its partial copy is gone. */
export async function forgetPartialCopy(env: Env, p: MoveParams) {
  await forgetLeftover(env, p.agency_id, p.to);
}

/**
 * Undoes a move that did not switch: the directory forgets the move and records the target's
 * partial copy as the leftover to remove, the fence lifts, the keys read the directory again and
 * the move is `failed` with `reason`. "switched" when the directory had switched already (there
 * is nothing to undo: the move goes on from there). Safe to run again.
 */
export async function rollBackMove(env: Env, p: Omit<MoveParams, "move_id"> & { move_id?: string }, reason: string): Promise<"rolled-back" | "switched"> {
  const location = await agencyLocation(env, p.agency_id);
  if (location?.shard === p.to) return "switched";
  await directoryDb(env)
    .update(agencyDirectory)
    .set({ movingTo: null, leftoverShard: p.to, moveHeartbeatAt: nowIso() })
    .where(and(eq(agencyDirectory.agencyId, p.agency_id), eq(agencyDirectory.shard, p.from)));
  await unfreezeAgency(shardDatabase(env, p.from), p.agency_id);
  await tellGates(env, p.agency_id);
  if (p.move_id) {
    const move = await getMove(env, p.move_id);
    if (move && !isFinalMoveState(move.state)) await endMove(env, p.move_id, "failed", reason);
  }
  return "rolled-back";
}

/** Workflow states in which an instance may still run its steps. */
const STOPPED = new Set(["errored", "terminated", "complete"]);

/**
 * Whether the move's workflow may still act: false once it has errored, been terminated or
 * completed, or when the Workflows service does not know it. Any other failure to ask throws,
 * so the cron never takes a move from a workflow that is only slow to answer.
 */
async function workflowStatus(env: Env, moveId: string): Promise<{ alive: boolean; status: string }> {
  try {
    const { status } = await (await env.MOVE_WORKFLOW.get(moveId)).status();
    return { alive: !STOPPED.has(status), status };
  } catch (error) {
    if (/not[_ ]?found/i.test((error as Error).message)) return { alive: false, status: "not found" };
    throw error;
  }
}

/**
 * The cron's part: finishes what a move whose workflow stopped for good left behind (its
 * heartbeat two minutes old). A move still copying is rolled back; a leftover copy (the old
 * copy after a switch, two minutes past it so every key's gate told of nothing has found the
 * `moved` fence on the old shard within its row's minute and read the directory again, or
 * a rolled-back move's partial copy) is deleted, up to CRON_PURGE_ROWS rows per run. One agency
 * per run, so this never crowds out the rest of the cron's work; the next run takes the next.
 */
export async function recoverMoves(env: Env, now: number): Promise<string | undefined> {
  for (const location of await unfinishedMoves(env, isoAt(now - MOVE_HEARTBEAT_TIMEOUT_MS))) {
    const move = await latestMove(env, location.agencyId);
    const workflow = move ? await workflowStatus(env, move.id) : { alive: false, status: "not found" };
    if (workflow.alive) continue;
    if (location.movingTo) {
      const ownMove = move && move.toShard === location.movingTo ? move : undefined;
      await rollBackMove(env, { move_id: ownMove?.id, agency_id: location.agencyId, from: location.shard, to: location.movingTo }, moveMessages.stopped(workflow.status));
      return "rolled-back";
    }
    const leftover = location.leftoverShard!;
    const { done } = await purgeRows(shardDatabase(env, leftover), location.agencyId, PURGE_START, CRON_PURGE_ROWS);
    if (!done) return "leftover-copy-shrunk";
    await forgetLeftover(env, location.agencyId, leftover);
    if (move?.state === "switching" && move.fromShard === leftover) await endMove(env, move.id, "done");
    return "leftover-copy-removed";
  }
  return undefined;
}

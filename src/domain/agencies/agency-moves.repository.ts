import { desc, eq } from "drizzle-orm";
import { agencyDirectory, agencyMoves, type AgencyMoveState } from "@/db/schema";
import { commit } from "@/db/outbox";
import { directoryDb } from "@/db/shards";
import type { Env } from "@/env";
import { nowIso } from "@/lib/time";

/** The directory's record of moves (`agency_moves`): what the operator API shows of each. */

export type AgencyMove = typeof agencyMoves.$inferSelect;

export const isFinalMoveState = (state: AgencyMoveState) => state === "done" || state === "failed";

export const insertMove = (env: Pick<Env, "DB">, move: { id: string; agencyId: string; fromShard: string; toShard: string }, now: string) =>
  directoryDb(env)
    .insert(agencyMoves)
    .values({ ...move, state: "copying", rowsCopied: 0, createdAt: now, updatedAt: now })
    .returning()
    .get();

/** The agency's latest move, or undefined when it never moved. */
export const latestMove = (env: Pick<Env, "DB">, agencyId: string) =>
  directoryDb(env).select().from(agencyMoves).where(eq(agencyMoves.agencyId, agencyId)).orderBy(desc(agencyMoves.createdAt)).limit(1).get();

export const getMove = (env: Pick<Env, "DB">, moveId: string) => directoryDb(env).select().from(agencyMoves).where(eq(agencyMoves.id, moveId)).get();

type MoveChange = Partial<Pick<AgencyMove, "state" | "rowsCopied" | "rowsTotal" | "error" | "finishedAt">>;

/**
 * Records a move's progress and renews its heartbeat in the directory, in one batch: the
 * heartbeat tells the cron the move is alive (see recoverMoves).
 */
export async function recordProgress(env: Pick<Env, "DB">, move: { id: string; agencyId: string }, change: MoveChange) {
  const now = nowIso();
  const db = directoryDb(env);
  await commit(db, [
    db.update(agencyMoves).set({ ...change, updatedAt: now }).where(eq(agencyMoves.id, move.id)),
    db.update(agencyDirectory).set({ moveHeartbeatAt: now }).where(eq(agencyDirectory.agencyId, move.agencyId)),
  ]);
}

/** Ends a move's record (`done` or `failed`), without touching the directory's heartbeat. */
export const endMove = (env: Pick<Env, "DB">, moveId: string, state: "done" | "failed", error: string | null = null) => {
  const now = nowIso();
  return directoryDb(env).update(agencyMoves).set({ state, error, updatedAt: now, finishedAt: now }).where(eq(agencyMoves.id, moveId));
};

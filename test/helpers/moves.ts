import { env } from "cloudflare:workers";
import { COPY_START, copyRows, freezeAgency, unfreezeAgency } from "@/db/agency-copy";
import type { Env } from "@/env";
import { tellGates } from "@/domain/agencies/move-agency";
import { shardDb, shardNameOf } from "./shards";

/**
 * A move held open, as a test needs it to do something in the middle of one: the states a move
 * passes through (move-agency.test.ts builds a killed move the same way), set by hand, so a test
 * decides when the move ends and how.
 */
export interface HeldMove {
  agencyUuid: string;
  from: string;
  to: string;
}

/** Whether the agency's gates hear of a step, as a move tells them; `false` plays a message that was lost. */
interface Telling {
  tell?: boolean;
}

/**
 * The state of a move between its claim and its switch: the directory says the agency is moving
 * to `to`, and its shard refuses its writes. The gates are not told unless `tell` (the move's
 * fence step tells them).
 */
export async function holdMove(agencyUuid: string, to?: string, { tell = false }: Telling = {}): Promise<HeldMove> {
  const from = await shardNameOf(agencyUuid);
  const target = to ?? (from === "DB" ? "DB_EU" : "DB");
  const now = new Date().toISOString();
  await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?").bind(target, now, agencyUuid).run();
  await freezeAgency(shardDb(from), agencyUuid, "moving", now);
  if (tell) await tellGates(env as unknown as Env, agencyUuid);
  return { agencyUuid, from, to: target };
}

/**
 * Ends a held move as a move succeeds: every row copied to the new shard, then the directory
 * switched to it and the old copy fenced as `moved`; the gates told unless `tell: false`.
 */
export async function finishHeldMove({ agencyUuid, from, to }: HeldMove, { tell = true }: Telling = {}) {
  let cursor = COPY_START;
  for (;;) {
    const step = await copyRows(shardDb(from), shardDb(to), agencyUuid, cursor, 5_000);
    if (step.done) break;
    cursor = step.next;
  }
  const now = new Date().toISOString();
  await env.DB.prepare("UPDATE agency_directory SET shard = ?, moving_to = NULL, leftover_shard = ?, move_heartbeat_at = ? WHERE agency_id = ?")
    .bind(to, from, now, agencyUuid)
    .run();
  await freezeAgency(shardDb(from), agencyUuid, "moved", now);
  if (tell) await tellGates(env as unknown as Env, agencyUuid);
}

/** Ends a held move as a move fails: the fence lifts and the directory forgets the move; the agency stays where it was. The gates told unless `tell: false`. */
export async function rollBackHeldMove({ agencyUuid, from }: HeldMove, { tell = true }: Telling = {}) {
  await unfreezeAgency(shardDb(from), agencyUuid);
  await env.DB.prepare("UPDATE agency_directory SET moving_to = NULL, move_heartbeat_at = NULL WHERE agency_id = ?").bind(agencyUuid).run();
  if (tell) await tellGates(env as unknown as Env, agencyUuid);
}

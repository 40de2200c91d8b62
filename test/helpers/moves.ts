import { env } from "cloudflare:workers";
import { COPY_START, copyRows, freezeAgency, unfreezeAgency } from "@/db/agency-copy";
import type { Env } from "@/env";
import { invalidateKey } from "@/lib/auth/gate";
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

/** The state of a move between its claim and its switch: the directory says the agency is moving to `to`, and its shard refuses its writes. */
export async function holdMove(agencyUuid: string, to?: string): Promise<HeldMove> {
  const from = await shardNameOf(agencyUuid);
  const target = to ?? (from === "DB" ? "DB_EU" : "DB");
  const now = new Date().toISOString();
  await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?").bind(target, now, agencyUuid).run();
  await freezeAgency(shardDb(from), agencyUuid, "moving", now);
  return { agencyUuid, from, to: target };
}

/** Every key of the agency reads the directory again on its next request, as a move tells them. */
async function invalidateKeys(agencyUuid: string) {
  const keys = await env.DB.prepare("SELECT id FROM directory_records WHERE agency_id = ? AND kind = 'api_key'").bind(agencyUuid).all<{ id: string }>();
  for (const { id } of keys.results) await invalidateKey(env as unknown as Env, id);
}

/** Ends a held move as a move succeeds: every row copied to the new shard, then the directory switched to it (the old copy stays fenced). */
export async function finishHeldMove({ agencyUuid, from, to }: HeldMove) {
  let cursor = COPY_START;
  for (;;) {
    const step = await copyRows(shardDb(from), shardDb(to), agencyUuid, cursor, 5_000);
    if (step.done) break;
    cursor = step.next;
  }
  await env.DB.prepare("UPDATE agency_directory SET shard = ?, moving_to = NULL, leftover_shard = ?, move_heartbeat_at = ? WHERE agency_id = ?")
    .bind(to, from, new Date().toISOString(), agencyUuid)
    .run();
  await invalidateKeys(agencyUuid);
}

/** Ends a held move as a move fails: the fence lifts and the directory forgets the move; the agency stays where it was. */
export async function rollBackHeldMove({ agencyUuid, from }: HeldMove) {
  await unfreezeAgency(shardDb(from), agencyUuid);
  await env.DB.prepare("UPDATE agency_directory SET moving_to = NULL, move_heartbeat_at = NULL WHERE agency_id = ?").bind(agencyUuid).run();
  await invalidateKeys(agencyUuid);
}

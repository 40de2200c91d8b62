import { env } from "cloudflare:workers";
import { admin } from "./http";

/** The shards of the tests (wrangler.toml's D1 bindings), registered with these regions by the setup file. */
export const TEST_SHARDS = [
  { name: "DB", region: "wnam" },
  { name: "DB_EU", region: "eu" },
] as const;

export type TestShard = (typeof TEST_SHARDS)[number]["name"];

/** The D1 database of a shard. */
export const shardDb = (shard: string) => (env as unknown as Record<string, D1Database>)[shard]!;

/** The shard the directory places the agency on. */
export async function shardNameOf(agencyUuid: string): Promise<string> {
  const row = await env.DB.prepare("SELECT shard FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first<{ shard: string }>();
  if (!row) throw new Error(`agency ${agencyUuid} is not in the directory`);
  return row.shard;
}

/** The D1 database holding the agency's records, for tests that look at rows directly. */
export const dbOf = async (agencyUuid: string) => shardDb(await shardNameOf(agencyUuid));

/** The D1 database of the agency of a key or team member (by its id in the directory). */
export async function dbOfRecord(id: string): Promise<D1Database> {
  const row = await env.DB.prepare("SELECT agency_id FROM directory_records WHERE id = ?").bind(id).first<{ agency_id: string }>();
  if (!row) throw new Error(`${id} is not in the directory`);
  return dbOf(row.agency_id);
}

/** The D1 database holding the row of `table` with that id (whichever shard it is on). */
export async function dbWith(table: string, id: string): Promise<D1Database> {
  for (const { name } of TEST_SHARDS) {
    if (await shardDb(name).prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).bind(id).first()) return shardDb(name);
  }
  throw new Error(`no ${table} row ${id} on any shard`);
}

/** The agency of the row of `table` with that id, on whichever shard it is; undefined when none has it. */
export async function agencyOfRow(table: string, id: string): Promise<string | undefined> {
  for (const { name } of TEST_SHARDS) {
    const row = await shardDb(name).prepare(`SELECT agency_id FROM "${table}" WHERE id = ?`).bind(id).first<{ agency_id: string }>();
    if (row) return row.agency_id;
  }
  return undefined;
}

/** An agency's move as the operator API shows it (`GET /admin/v1/agencies/{agency_uuid}`). */
export interface AgencyMoveView {
  move_uuid: string;
  from: string;
  to: string;
  state: "copying" | "verifying" | "switching" | "done" | "failed";
  rows_copied: number;
  rows_total: number | null;
  error: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** The agency's latest move, or null when it never moved. */
export const latestMoveOf = async (agencyUuid: string) => (await admin("GET", `/agencies/${agencyUuid}`)).body.move as AgencyMoveView | null;

/**
 * A pause between two requests of a test's loop. In the tests every D1 database answers from the
 * test's own process: a loop that sends its next request at once never lets the event loop go
 * idle, and workerd fires no timer until it does, so a move (whose copy pauses on a timer between
 * chunks, src/db/agency-copy.ts) would wait for the loop to end.
 */
export const breather = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the agency's latest move until it is `done` or `failed`, and returns it. The deadline
 * reads `performance.now()`, which a faked clock leaves alone.
 */
export async function moveEnded(agencyUuid: string, timeoutMs = 60_000): Promise<AgencyMoveView> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const move = await latestMoveOf(agencyUuid);
    if (move && (move.state === "done" || move.state === "failed")) return move;
    if (performance.now() > deadline) throw new Error(`the move did not end within ${timeoutMs} ms: ${JSON.stringify(move)}`);
    await breather(10);
  }
}

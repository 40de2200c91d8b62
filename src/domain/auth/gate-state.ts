import { agencyLocation, recordLocation, shardDatabase } from "@/db/shards";
import type { Env } from "@/env";

/**
 * What an AccessGate (src/durable-objects/access-gate.ts) caches of a key or of a connected
 * app's grant, read in two steps: where the agency lives (the directory), then the record on
 * that shard (docs/decisions/shards-and-moves.md). The gate decides when to read again.
 *
 * Where the agency lives is read from the directory once, then kept until the gate is told
 * otherwise (docs/decisions/authentication.md, "The gate keeps the key's shard"): a later read
 * passes what the gate knows as `known` and reads only the record, on that shard, together
 * with the shard's word on the agency's move fence. The directory is read again only when the
 * shard disagrees with what the gate knows (the agency left the shard, or began or ended a
 * move the gate was not told of) or the record is not there.
 */

export interface KeyState {
  agencyId: string;
  /** The shard the agency lives on, from the directory (docs/decisions/shards-and-moves.md). */
  shard: string;
  /** The agency is being copied to another shard: its writes wait. */
  moving: boolean;
  accessHash: string;
  scopes: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  rateLimitMultiplier: number;
}

/** A connected app's grant, as its gate needs it: where its agency lives, and its row's limits. */
export interface GrantState {
  shard: string;
  moving: boolean;
  rateLimitMultiplier: number;
}

/** The agency's fence on the shard the row was read from (`agency_freezes`, migration 0011): null, `moving` or `moved`. */
const FENCE = "(SELECT state FROM agency_freezes f WHERE f.agency_id = r.agency_id) AS fence";

/**
 * Whether the shard's fence agrees with what the gate knows: no fence for an agency at home,
 * `moving` for one being copied away. `moved` (the agency lives elsewhere now) never does.
 */
const fenceAgrees = (fence: string | null, moving: boolean) => (fence === null ? !moving : fence === "moving" && moving);

interface KeyRow {
  agency_id: string;
  access_hash: string;
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  rate_limit_multiplier: number;
  fence: string | null;
}

const keyRow = (env: Env, shard: string, keyId: string) =>
  shardDatabase(env, shard)
    .prepare(`SELECT agency_id, access_hash, scopes, expires_at, revoked_at, rate_limit_multiplier, ${FENCE} FROM api_keys r WHERE id = ?`)
    .bind(keyId)
    .first<KeyRow>();

const keyState = (row: KeyRow, shard: string, moving: boolean): KeyState => ({
  agencyId: row.agency_id,
  shard,
  moving,
  accessHash: row.access_hash,
  scopes: JSON.parse(row.scopes) as string[],
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  rateLimitMultiplier: row.rate_limit_multiplier,
});

/**
 * The key's row and where its agency lives; null for a key the directory or its shard does not
 * know. With `known` (what the gate holds), one read on the known shard, unless that shard
 * disagrees: then the directory is read as for a gate that knows nothing.
 */
export async function readKeyState(env: Env, keyId: string, known?: KeyState | null): Promise<KeyState | null> {
  if (known) {
    const row = await keyRow(env, known.shard, keyId);
    if (row && fenceAgrees(row.fence, known.moving)) return keyState(row, known.shard, known.moving);
  }
  const location = await recordLocation(env, "api_key", keyId);
  const row = location ? await keyRow(env, location.shard, keyId) : null;
  return location && row ? keyState(row, location.shard, location.movingTo !== null) : null;
}

const grantRow = (env: Env, shard: string, agencyId: string, grantId: string) =>
  shardDatabase(env, shard)
    .prepare(`SELECT rate_limit_multiplier, revoked_at, ${FENCE} FROM app_grants r WHERE id = ? AND agency_id = ?`)
    .bind(grantId, agencyId)
    .first<{ rate_limit_multiplier: number; revoked_at: string | null; fence: string | null }>();

/**
 * Where the grant's agency lives and the grant's own row; null when either is missing or the
 * grant was revoked. With `known`, read as a key's is (readKeyState).
 */
export async function readGrantState(env: Env, agencyId: string, grantId: string, known?: GrantState | null): Promise<GrantState | null> {
  if (known) {
    const row = await grantRow(env, known.shard, agencyId, grantId);
    if (row && fenceAgrees(row.fence, known.moving)) return row.revoked_at ? null : { ...known, rateLimitMultiplier: row.rate_limit_multiplier };
  }
  const location = await agencyLocation(env, agencyId);
  const row = location ? await grantRow(env, location.shard, agencyId, grantId) : null;
  return location && row && !row.revoked_at ? { shard: location.shard, moving: location.movingTo !== null, rateLimitMultiplier: row.rate_limit_multiplier } : null;
}

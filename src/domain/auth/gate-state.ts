import { agencyLocation, recordLocation, shardDatabase } from "@/db/shards";
import type { Env } from "@/env";

/**
 * What an AccessGate (src/durable-objects/access-gate.ts) caches of a key or of a connected
 * app's grant, read in two steps: where the agency lives (the directory), then the record on
 * that shard (docs/decisions/shards-and-moves.md). The gate decides when to read again.
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

/** The key's row and where its agency lives; null for a key the directory or its shard does not know. */
export async function readKeyState(env: Env, keyId: string): Promise<KeyState | null> {
  const location = await recordLocation(env, "api_key", keyId);
  const row = location
    ? await shardDatabase(env, location.shard)
        .prepare("SELECT agency_id, access_hash, scopes, expires_at, revoked_at, rate_limit_multiplier FROM api_keys WHERE id = ?")
        .bind(keyId)
        .first<{
          agency_id: string;
          access_hash: string;
          scopes: string;
          expires_at: string | null;
          revoked_at: string | null;
          rate_limit_multiplier: number;
        }>()
    : null;
  return location && row
    ? {
        agencyId: row.agency_id,
        shard: location.shard,
        moving: location.movingTo !== null,
        accessHash: row.access_hash,
        scopes: JSON.parse(row.scopes) as string[],
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        rateLimitMultiplier: row.rate_limit_multiplier,
      }
    : null;
}

/** Where the grant's agency lives and the grant's own row; null when either is missing or the grant was revoked. */
export async function readGrantState(env: Env, agencyId: string, grantId: string): Promise<GrantState | null> {
  const location = await agencyLocation(env, agencyId);
  const row = location
    ? await shardDatabase(env, location.shard)
        .prepare("SELECT rate_limit_multiplier, revoked_at FROM app_grants WHERE id = ? AND agency_id = ?")
        .bind(grantId, agencyId)
        .first<{ rate_limit_multiplier: number; revoked_at: string | null }>()
    : null;
  return location && row && !row.revoked_at ? { shard: location.shard, moving: location.movingTo !== null, rateLimitMultiplier: row.rate_limit_multiplier } : null;
}

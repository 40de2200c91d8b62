import type { ShardRegion } from "@/db/schema";
import { agencyCounts, listShards, shardBinding, shardSizeBytes, type ShardRow } from "@/db/shards";
import { forEachLimited } from "@/lib/for-each-limited";
import type { Env } from "@/env";
import { badRequest } from "@/lib/errors";

export const placementMessages = {
  unknownShard: (name: string) => `Unknown shard: ${name}. GET /admin/v1/shards lists them.`,
  notBound: (name: string) => `Shard ${name} is registered but this Worker has no D1 binding of that name`,
  noShardInRegion: (region: string) => `No open shard serves region ${region}`,
  noOpenShard: "No open shard takes new agencies",
  regionOrShard: "Give region or shard, not both",
} as const;

/** Shards a request may read concurrently: a Worker holds at most six connections open. */
const SIZE_READS_AT_ONCE = 4;

/** A registered shard with what the operator sees of it. */
export interface ShardView extends ShardRow {
  bound: boolean;
  agencyCount: number;
  /** Null when this Worker has no binding for it. */
  sizeBytes: number | null;
}

/** Every registered shard with its agency count (directory) and size (each database's own report). */
export async function describeShards(env: Env, only?: (shard: ShardRow) => boolean): Promise<ShardView[]> {
  const [rows, counts] = await Promise.all([listShards(env), agencyCounts(env)]);
  const views = rows.filter((r) => !only || only(r)).map((r): ShardView => ({ ...r, bound: shardBinding(env, r.name) !== undefined, agencyCount: counts.get(r.name) ?? 0, sizeBytes: null }));
  await forEachLimited(
    views.filter((v) => v.bound),
    SIZE_READS_AT_ONCE,
    async (view) => {
      view.sizeBytes = await shardSizeBytes(shardBinding(env, view.name)!);
    },
  );
  return views;
}

/** The registered, bound shard of that name, or 400. */
export async function requireShard(env: Env, name: string): Promise<ShardRow> {
  const shard = (await listShards(env)).find((s) => s.name === name);
  if (!shard) throw badRequest(placementMessages.unknownShard(name));
  if (!shardBinding(env, name)) throw badRequest(placementMessages.notBound(name));
  return shard;
}

/**
 * Where a new agency goes (docs/decisions/shards-and-moves.md): the shard named, if any (open
 * or closed: closing a shard stops automatic placement, while the operator may still put an
 * agency there on purpose, e.g. a dedicated shard); otherwise the least full open shard (by
 * bytes, then agencies) of the region, or of any region when none is asked for. A shard whose
 * region is not recorded is never chosen by region. 400 when nothing fits.
 */
export async function chooseShard(env: Env, request: { region?: ShardRegion; shard?: string }): Promise<ShardRow> {
  if (request.region && request.shard) throw badRequest(placementMessages.regionOrShard);
  if (request.shard) return requireShard(env, request.shard);
  const candidates = await describeShards(env, (s) => s.open && (!request.region || s.region === request.region));
  const usable = candidates.filter((c) => c.bound);
  if (usable.length === 0) throw badRequest(request.region ? placementMessages.noShardInRegion(request.region) : placementMessages.noOpenShard);
  usable.sort((a, b) => a.sizeBytes! - b.sizeBytes! || a.agencyCount - b.agencyCount || a.name.localeCompare(b.name));
  return usable[0]!;
}

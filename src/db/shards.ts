import { and, eq, inArray, isNotNull, lte, or, sql } from "drizzle-orm";
import type { Env } from "@/env";
import { createDb, type Db } from "./client";
import { agencyDirectory, directoryRecords, shards, type ShardRegion } from "./schema";

/**
 * Where agencies live (docs/decisions/shards-and-moves.md). Every agency's records are in one
 * shard, a D1 database bound to the Worker as `DB` or `DB_<NAME>` (the binding's name is the
 * shard's name); the directory, in the database bound as `DB`, says which. Everything above
 * this floor asks here for "the database of this agency" and never names a binding.
 */

/** The binding of the directory, which is also the first shard (the home of a pre-shard deployment's agencies). */
export const DIRECTORY_SHARD = "DB";

const SHARD_BINDING = /^DB(?:_[A-Z0-9][A-Z0-9_]{0,62})?$/;

export const isShardName = (name: string) => SHARD_BINDING.test(name);

const isD1 = (value: unknown): value is D1Database =>
  typeof value === "object" && value !== null && typeof (value as D1Database).prepare === "function" && typeof (value as D1Database).withSession === "function";

/** The D1 database of a shard, or undefined when this Worker has no such binding. */
export function shardBinding(env: Env, name: string): D1Database | undefined {
  if (!isShardName(name)) return undefined;
  const value = (env as unknown as Record<string, unknown>)[name];
  return isD1(value) ? value : undefined;
}

/** The D1 database of a shard the directory names; a missing binding is a deployment error. */
export function shardDatabase(env: Env, name: string): D1Database {
  const d1 = shardBinding(env, name);
  if (!d1) throw new Error(`No D1 binding named ${name}: add it to wrangler.toml (see docs/operations.md, Scaling)`);
  return d1;
}

/**
 * Whether the shard's database was migrated: `agency_freezes` comes with the shards' migration
 * (0011), so a database without it cannot hold agencies.
 */
export async function hasShardSchema(d1: D1Database): Promise<boolean> {
  try {
    await d1.prepare("SELECT 1 FROM agency_freezes LIMIT 1").run();
    return true;
  } catch {
    return false;
  }
}

/** Every shard binding of this Worker, registered or not. */
export const boundShards = (env: Env) => Object.keys(env).filter((name) => shardBinding(env, name) !== undefined);

/**
 * The directory. Queries outside a session go to the primary, so a move's switch, or a shard
 * closed a moment ago, is never read late.
 */
export const directoryDb = (env: Pick<Env, "DB">): Db => createDb(env.DB);

export type ShardRow = typeof shards.$inferSelect;
export type AgencyLocation = typeof agencyDirectory.$inferSelect;

export const listShards = (env: Env) => directoryDb(env).select().from(shards).orderBy(shards.name).all();

export const getShard = (env: Env, name: string) => directoryDb(env).select().from(shards).where(eq(shards.name, name)).get();

/** Registers a shard, or changes its region or whether it takes new agencies. */
export async function saveShard(env: Env, input: { name: string; region: ShardRegion | null; open: boolean }, now: string) {
  const [row] = await directoryDb(env)
    .insert(shards)
    .values({ ...input, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: shards.name, set: { region: input.region, open: input.open, updatedAt: now } })
    .returning();
  return row!;
}

/** Agencies per shard, from the directory. */
export async function agencyCounts(env: Env): Promise<Map<string, number>> {
  const rows = await directoryDb(env)
    .select({ shard: agencyDirectory.shard, count: sql<number>`count(*)` })
    .from(agencyDirectory)
    .groupBy(agencyDirectory.shard)
    .all();
  return new Map(rows.map((r) => [r.shard, r.count]));
}

/** The database's size in bytes: D1 reports it in the metadata of every result. */
export async function shardSizeBytes(d1: D1Database): Promise<number> {
  const result = await d1.prepare("SELECT 1").run();
  return (result.meta as { size_after?: number }).size_after ?? 0;
}

export const agencyLocation = (env: Pick<Env, "DB">, agencyId: string) =>
  directoryDb(env).select().from(agencyDirectory).where(eq(agencyDirectory.agencyId, agencyId)).get();

/**
 * A client of the agency's shard, and where the agency lives; undefined for an agency the
 * directory does not know. For work outside a request's shard session (jobs, callbacks).
 */
export async function agencyDb(env: Env, agencyId: string): Promise<{ db: Db; location: AgencyLocation } | undefined> {
  const location = await agencyLocation(env, agencyId);
  return location ? { db: createDb(shardDatabase(env, location.shard)), location } : undefined;
}

/** Where the agency of a key or member lives, found by the record's id. */
export const recordLocation = (env: Pick<Env, "DB">, kind: (typeof directoryRecords.$inferSelect)["kind"], id: string) =>
  directoryDb(env)
    .select({ agencyId: agencyDirectory.agencyId, shard: agencyDirectory.shard, movingTo: agencyDirectory.movingTo })
    .from(directoryRecords)
    .innerJoin(agencyDirectory, eq(agencyDirectory.agencyId, directoryRecords.agencyId))
    .where(and(eq(directoryRecords.id, id), eq(directoryRecords.kind, kind)))
    .get();

/** The ids of an agency's keys, whose gates must forget the agency's shard when it moves. */
export const agencyKeyIds = async (env: Env, agencyId: string) =>
  (
    await directoryDb(env)
      .select({ id: directoryRecords.id })
      .from(directoryRecords)
      .where(and(eq(directoryRecords.agencyId, agencyId), eq(directoryRecords.kind, "api_key")))
      .all()
  ).map((r) => r.id);

/** Agencies in the directory, oldest first, optionally only those on some shards. */
export const listAgencyLocations = (env: Env, onShards?: string[]) =>
  directoryDb(env)
    .select()
    .from(agencyDirectory)
    .where(onShards ? inArray(agencyDirectory.shard, onShards) : undefined)
    .orderBy(agencyDirectory.createdAt)
    .all();

/**
 * Moves to finish or undo, quiet since before `staleBefore`: a move whose heartbeat stopped, or
 * an old copy not yet removed since its switch (whose time the heartbeat then holds).
 */
export const unfinishedMoves = (env: Env, staleBefore: string) =>
  directoryDb(env)
    .select()
    .from(agencyDirectory)
    .where(and(or(isNotNull(agencyDirectory.movingTo), isNotNull(agencyDirectory.leftoverShard)), lte(agencyDirectory.moveHeartbeatAt, staleBefore)))
    .all();

/**
 * The databases of the agencies a job's messages name, each found in the directory once per
 * job. A message without an agency was sent before shards: its records are on the first shard.
 * Undefined for an agency the directory does not know (deleted, or never created).
 */
export class AgencyDatabases {
  private readonly dbs = new Map<string, Promise<Db | undefined>>();

  constructor(private readonly env: Env) {}

  of(agencyId: string | undefined): Promise<Db | undefined> {
    const key = agencyId ?? "";
    let db = this.dbs.get(key);
    if (!db) {
      db = agencyId
        ? agencyLocation(this.env, agencyId).then((l) => (l ? createDb(shardDatabase(this.env, l.shard)) : undefined))
        : Promise.resolve(createDb(shardDatabase(this.env, DIRECTORY_SHARD)));
      this.dbs.set(key, db);
    }
    return db;
  }

  /** Every database handed out, for the events they wrote. */
  async opened(): Promise<Db[]> {
    return (await Promise.all(this.dbs.values())).filter((db): db is Db => db !== undefined);
  }
}

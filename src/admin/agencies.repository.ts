import { eq, inArray } from "drizzle-orm";
import { createDb, type Db } from "@/db/client";
import { agencies, agencyDirectory } from "@/db/schema";
import { directoryDb, forEachLimited, listAgencyLocations, listShards, shardDatabase, type AgencyLocation, type ShardRow } from "@/db/shards";
import type { Env } from "@/env";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type AgencyRow = typeof agencies.$inferSelect;

/** The operator's view of an agency: its record, and the shard (and that shard's region) it lives on. */
export const toPublicAgency = (a: AgencyRow, location: Pick<AgencyLocation, "shard">, region: ShardRow["region"]) => ({
  agency_uuid: a.id,
  name: a.name,
  timezone: a.timezone,
  shard: location.shard,
  region,
  created_at: a.createdAt,
});

/**
 * Creates the agency on `shard`, then records it in the directory: until then no request can
 * reach it, so a failure between the two leaves an orphan row nothing points to, never a
 * directory entry without its agency.
 */
export async function createAgency(env: Env, shard: string, input: { name: string; timezone: string }) {
  const now = nowIso();
  const row: AgencyRow = { id: newId(), ...input, createdAt: now, updatedAt: now };
  await createDb(shardDatabase(env, shard)).insert(agencies).values(row);
  await directoryDb(env).insert(agencyDirectory).values({ agencyId: row.id, shard, createdAt: now });
  return row;
}

export const getAgency = (db: Db, agencyId: string) => db.select().from(agencies).where(eq(agencies.id, agencyId)).get();

/** D1 binds at most 100 parameters per statement. */
const IDS_PER_READ = 90;
/** Shards read at once: a Worker holds at most six connections open. */
const SHARDS_AT_ONCE = 4;

/**
 * Every agency, oldest first: the directory says where each lives, and each shard is asked for
 * its own (the operator's list; it reads every shard that has agencies).
 */
export async function listAgencies(env: Env) {
  const [locations, shards] = await Promise.all([listAgencyLocations(env), listShards(env)]);
  const byShard = new Map<string, AgencyLocation[]>();
  for (const l of locations) byShard.set(l.shard, [...(byShard.get(l.shard) ?? []), l]);
  const rows = new Map<string, AgencyRow>();
  await forEachLimited([...byShard], SHARDS_AT_ONCE, async ([shard, here]) => {
    const db = createDb(shardDatabase(env, shard));
    for (let i = 0; i < here.length; i += IDS_PER_READ) {
      const ids = here.slice(i, i + IDS_PER_READ).map((l) => l.agencyId);
      for (const row of await db.select().from(agencies).where(inArray(agencies.id, ids)).all()) rows.set(row.id, row);
    }
  });
  const regions = new Map(shards.map((s) => [s.name, s.region]));
  return locations.flatMap((l) => {
    const row = rows.get(l.agencyId);
    return row ? [toPublicAgency(row, l, regions.get(l.shard) ?? null)] : [];
  });
}

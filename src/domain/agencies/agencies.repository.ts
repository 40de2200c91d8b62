import { eq } from "drizzle-orm";
import { createDb, type Db } from "@/db/client";
import { agencies, agencyDirectory, smsNumbers } from "@/db/schema";
import { directoryDb, listAgencyLocations, listShards, shardDatabase, type AgencyLocation, type ShardRow } from "@/db/shards";
import { forEachLimited } from "@/lib/for-each-limited";
import type { Env } from "@/env";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type AgencyRow = typeof agencies.$inferSelect;

/** The operator's view of an agency: its record, and the shard (and that shard's region) it lives on. */
export const toPublicAgency = (a: AgencyRow, location: Pick<AgencyLocation, "shard">, region: ShardRow["region"], smsNumber: string | null) => ({
  agency_uuid: a.id,
  name: a.name,
  timezone: a.timezone,
  shard: location.shard,
  region,
  sms_number: smsNumber,
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

/** Shards read at once: a Worker holds at most six connections open. */
const SHARDS_AT_ONCE = 4;

/**
 * Every agency, oldest first: the directory says where each lives, and each shard that has
 * agencies is read once (a shard holds a few hundred), so the list costs one query per shard.
 * An agency's old copy, during a move's clean-up, is not listed twice.
 */
export async function listAgencies(env: Env) {
  const [locations, shards, numbers] = await Promise.all([listAgencyLocations(env), listShards(env), directoryDb(env).select().from(smsNumbers).all()]);
  const rows = new Map<string, AgencyRow>();
  const homes = new Map(locations.map((l) => [l.agencyId, l.shard]));
  await forEachLimited([...new Set(homes.values())], SHARDS_AT_ONCE, async (shard) => {
    for (const row of await createDb(shardDatabase(env, shard)).select().from(agencies).all()) {
      if (homes.get(row.id) === shard) rows.set(row.id, row);
    }
  });
  const regions = new Map(shards.map((s) => [s.name, s.region]));
  const numberOf = new Map(numbers.map((n) => [n.agencyId, n.number]));
  return locations.flatMap((l) => {
    const row = rows.get(l.agencyId);
    return row ? [toPublicAgency(row, l, regions.get(l.shard) ?? null, numberOf.get(l.agencyId) ?? null)] : [];
  });
}

import { env } from "cloudflare:workers";

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

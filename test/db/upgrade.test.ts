import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agencyLocation, recordLocation } from "@/db/shards";

const testEnv = env as unknown as { UPGRADE_DB: D1Database; TEST_MIGRATIONS: D1Migration[] };

describe("upgrading a one-database deployment", () => {
  it("moves no row: migration 0011 registers the database as shard DB and records its agencies, keys and members there", async () => {
    const legacy = testEnv.UPGRADE_DB;
    const all = testEnv.TEST_MIGRATIONS;
    const beforeShards = all.slice(0, all.findIndex((m) => m.name.startsWith("0011")));
    expect(beforeShards.length).toBe(11);
    await applyD1Migrations(legacy, beforeShards);
    // A deployment's data from before shards.
    const [agencyId, keyId, memberId] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const at = "2026-06-01T12:00:00.000Z";
    await legacy.batch([
      legacy.prepare("INSERT INTO agencies (id, name, timezone, created_at, updated_at) VALUES (?, 'Old Agency', 'UTC', ?, ?)").bind(agencyId, at, at),
      legacy
        .prepare(
          `INSERT INTO api_keys (id, agency_id, name, kind, scopes, access_hash, rotate_hash, expires_at, expires, rate_limit_multiplier, created_at, updated_at)
           VALUES (?, ?, 'old key', 'standard', '["*"]', 'hash', NULL, NULL, 0, 1, ?, ?)`,
        )
        .bind(keyId, agencyId, at, at),
      legacy.prepare("INSERT INTO members (id, agency_id, name, email, role, created_at, updated_at) VALUES (?, ?, 'Olga', 'olga@example.com', 'owner', ?, ?)").bind(memberId, agencyId, at, at),
      legacy.prepare("INSERT INTO contacts (id, agency_id, first_name, last_name, tags, custom_fields, created_at, updated_at) VALUES (?, ?, 'Ada', 'Lovelace', '[]', '{}', ?, ?)").bind(crypto.randomUUID(), agencyId, at, at),
    ]);
    const rowsBefore = await legacy.prepare("SELECT (SELECT count(*) FROM agencies) AS a, (SELECT count(*) FROM api_keys) AS k, (SELECT count(*) FROM contacts) AS c").first();

    await applyD1Migrations(legacy, all);

    expect(await legacy.prepare("SELECT name, region, open FROM shards").all()).toMatchObject({ results: [{ name: "DB", region: null, open: 1 }] });
    // The Worker's own directory reads find everything on DB, where it already was.
    const directory = { DB: legacy };
    expect(await agencyLocation(directory, agencyId)).toMatchObject({ agencyId, shard: "DB", movingTo: null, leftoverShard: null });
    expect(await recordLocation(directory, "api_key", keyId)).toEqual({ agencyId, shard: "DB", movingTo: null });
    expect(await recordLocation(directory, "member", memberId)).toEqual({ agencyId, shard: "DB", movingTo: null });
    expect(await legacy.prepare("SELECT (SELECT count(*) FROM agencies) AS a, (SELECT count(*) FROM api_keys) AS k, (SELECT count(*) FROM contacts) AS c").first()).toEqual(rowsBefore);
  });
});

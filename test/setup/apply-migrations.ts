import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { TEST_SHARDS } from "../helpers/shards";

const migrations = (env as unknown as { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS;
// Setup files may run more than once; applyD1Migrations skips what is already applied.
for (const { name } of TEST_SHARDS) await applyD1Migrations((env as unknown as Record<string, D1Database>)[name]!, migrations);
// Every shard registered with its region in the directory, as `npm run dev` does through the operator API.
await env.DB.batch(
  TEST_SHARDS.map(({ name, region }) =>
    env.DB.prepare(
      "INSERT INTO shards (name, region, open, created_at, updated_at) VALUES (?1, ?2, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z') ON CONFLICT (name) DO UPDATE SET region = excluded.region, open = 1",
    ).bind(name, region),
  ),
);

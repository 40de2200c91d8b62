import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers/http";
import { setupAgencyOn } from "./helpers/factories";
import { exampleBody, operationsOf, type Json } from "./helpers/openapi-doc";
import { populate, readEverything } from "./helpers/populate";
import { shardDb, TEST_SHARDS } from "./helpers/shards";

/** Tables known to hold agency records; the schema-derived list below must contain at least these. */
const KNOWN_AGENCY_TABLES = [
  "contacts",
  "contact_tags",
  "fields",
  "appointments",
  "calendar_hours",
  "booking_widgets",
  "messages",
  "paths",
  "path_versions",
  "path_events",
  "lead_orders",
  "members",
  "invites",
  "voice_agents",
  "voice_phone_numbers",
  "voice_calls",
  "wallets",
  "wallet_ledger",
  "agency_settings",
  "record_counts",
  "api_keys",
  "security_events",
  "idempotency_keys",
  "agency_secrets",
];

/**
 * Every table with an `agency_id` column, read from the schema so a table added later is
 * watched without touching this file (D1's and SQLite's own tables excluded).
 */
async function agencyTables(): Promise<string[]> {
  const rows = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%agency_id%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name",
  ).all<{ name: string }>();
  return rows.results.map((r) => r.name);
}

/** The agency's rows on every shard, by table (on the shards it does not live on: none). */
async function snapshot(tables: string[], agencyUuid: string) {
  const rows: Record<string, unknown[]> = {};
  for (const { name } of TEST_SHARDS) {
    for (const table of tables) {
      rows[`${name}.${table}`] = (await shardDb(name).prepare(`SELECT * FROM "${table}" WHERE agency_id = ? ORDER BY rowid`).bind(agencyUuid).all()).results;
    }
  }
  return rows;
}

/** The owner on one shard and the other agency on the same one, and on the other one either way. */
const PLACEMENTS: [string, string][] = [
  ["DB", "DB"],
  ["DB", "DB_EU"],
  ["DB_EU", "DB"],
];

describe("tenant isolation", () => {
  it("watches every table with an agency_id column", async () => {
    const tables = await agencyTables();
    for (const table of KNOWN_AGENCY_TABLES) expect(tables, `${table} has no agency_id column any more`).toContain(table);
  });

  it.each(PLACEMENTS)("answers 404 to another agency's * key on every route with an identifier, and changes none of the owner's rows (owner on %s, intruder on %s)", async (ownerShard, intruderShard) => {
    const tables = await agencyTables();
    expect(tables).toEqual(expect.arrayContaining(KNOWN_AGENCY_TABLES));
    const { owner, idFor } = await populate("Owner agency", ownerShard);
    const intruder = await setupAgencyOn(intruderShard, "Intruder agency");
    const doc = (await api("GET", "/openapi.json")).body as Json;
    const operations = operationsOf(doc).filter((o) => o.path.includes("{"));
    expect(operations.length).toBeGreaterThanOrEqual(20);

    const before = await snapshot(tables, owner.agencyUuid);
    // The owner's records really are in the snapshot, so an unchanged snapshot means something.
    for (const table of ["contacts", "fields", "messages", "appointments", "paths", "lead_orders", "voice_agents", "voice_calls", "members", "api_keys"]) {
      expect(before[`${ownerShard}.${table}`]!.length, `the owner has no ${table} rows`).toBeGreaterThan(0);
    }
    for (const { method, path, op } of operations) {
      let url = path;
      for (const p of (op.parameters ?? []).filter((p: Json) => p.in === "path")) {
        const id = idFor(path, p.name);
        expect(id, `no fixture for {${p.name}} in ${method} ${path}: add one to populate()`).toBeTruthy();
        url = url.replace(`{${p.name}}`, id!);
      }
      const res = await api(method, url, { token: intruder.token, body: exampleBody(doc, op) });
      expectError(res, 404, undefined, "not_found");
    }
    expect(await snapshot(tables, owner.agencyUuid)).toEqual(before);

    // The owner still sees every record.
    for (const { path, op } of operations.filter((o) => o.method === "GET")) {
      let url = path;
      for (const p of (op.parameters ?? []).filter((p: Json) => p.in === "path")) url = url.replace(`{${p.name}}`, idFor(path, p.name)!);
      expect((await api("GET", url, { token: owner.token })).status, `GET ${url}`).toBe(200);
    }
  });

  it.each(PLACEMENTS.filter(([a, b]) => a !== b))(
    "shows an agency on %s the same on every GET route before and after another agency on %s fills up with records",
    async (ownerShard, otherShard) => {
      const { owner, idFor } = await populate("Steady agency", ownerShard);
      const before = await readEverything(owner.token, idFor);
      const other = await populate("Busy agency", otherShard);
      expect(await readEverything(other.owner.token, other.idFor)).not.toEqual(before);
      expect(await readEverything(owner.token, idFor)).toEqual(before);
    },
  );
});

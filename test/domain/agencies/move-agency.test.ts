import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { copyTable, countAgencyRows, freezeAgency } from "@/db/agency-copy";
import { agencyTables, derivedAgencyTables } from "@/db/agency-tables";
import type { Env } from "@/env";
import { invalidateKey } from "@/lib/auth/gate";
import { restoreClock, setClock } from "../../helpers/clock";
import { browse, KEYS_PATH, signIn } from "../../helpers/dashboard";
import { createKey, setupAgencyOn } from "../../helpers/factories";
import { admin, api, expectError } from "../../helpers/http";
import { populate, readEverything } from "../../helpers/populate";
import { shardDb, shardNameOf } from "../../helpers/shards";
import { runCron } from "../../helpers/voice-queue";

const workerEnv = env as unknown as Env;
const WRITES_PAUSED = "The agency's data is being moved to another database and writes are paused. Retry after 10 seconds.";
const DIRECTORY_TABLES = ["agency_directory", "directory_records", "agency_freezes", "sms_numbers"];

afterEach(() => restoreClock());

const move = (agencyUuid: string, shard: string) => admin("POST", `/agencies/${agencyUuid}/move`, { shard });
const newContact = (token: string, name = "Grace") => api("POST", "/contacts", { token, body: { first_name: name, last_name: "Hopper" } });

/** The agency's rows per table on a shard (every table a move copies). */
const rowsOn = (shard: string, agencyUuid: string) => countAgencyRows(shardDb(shard), agencyUuid, "all");
const nothing = Object.fromEntries(agencyTables.map((t) => [t.name, 0]));

/** The state a move leaves when its Worker dies after copying `tablesCopied` tables: directory marked, old shard fenced, a partial copy. */
async function killedMove(agencyUuid: string, from: string, to: string, tablesCopied: number, heartbeatAt: number) {
  await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?").bind(to, new Date(heartbeatAt).toISOString(), agencyUuid).run();
  await freezeAgency(shardDb(from), agencyUuid, "moving", new Date(heartbeatAt).toISOString());
  const keys = await env.DB.prepare("SELECT id FROM directory_records WHERE agency_id = ? AND kind = 'api_key'").bind(agencyUuid).all<{ id: string }>();
  for (const { id } of keys.results) await invalidateKey(workerEnv, id);
  for (const table of agencyTables.slice(0, tablesCopied)) await copyTable(shardDb(from), shardDb(to), table, agencyUuid);
}

describe("the move fence", () => {
  it("covers every table holding agency rows: each is moved or derived, and has its triggers on every shard", async () => {
    const withAgency = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%agency_id%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' AND name NOT LIKE 'contacts_fts%'",
    ).all<{ name: string }>();
    const known = new Set([...agencyTables.map((t) => t.name), ...derivedAgencyTables, ...DIRECTORY_TABLES]);
    expect(withAgency.results.map((r) => r.name).filter((name) => !known.has(name)), "add these to src/db/agency-tables.ts").toEqual([]);
    for (const shard of ["DB", "DB_EU"]) {
      const triggers = new Set(
        (await shardDb(shard).prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_freeze_%'").all<{ name: string }>()).results.map((r) => r.name),
      );
      const expected = agencyTables.flatMap((t) => t.fenced.map((op) => `${t.name}_freeze_${op}`));
      expect(expected.filter((name) => !triggers.has(name)), `triggers missing on ${shard} (migration 0011)`).toEqual([]);
      expect(triggers.size).toBe(expected.length);
    }
  });
});

describe("POST /admin/v1/agencies/{agency_uuid}/move", () => {
  it("copies every record to the new shard, verifies, switches and removes the old copy: the same key reads everything", async () => {
    const { owner, idFor } = await populate("Moving agency", "DB");
    const { agencyUuid, token } = owner;
    // A dashboard session, an idempotent create and a second key move too.
    const session = await signIn({ agency: owner });
    expect((await api("POST", "/fields", { token, body: { key: "size", label: "Size", type: "number" }, headers: { "Idempotency-Key": "move-1" } })).status).toBe(201);
    const reader = await createKey(agencyUuid, { scopes: ["contacts"] });
    const before = await rowsOn("DB", agencyUuid);
    for (const table of ["contacts", "contact_tags", "api_keys", "events", "voice_calls", "appointments", "messages", "webhook_endpoints", "dashboard_sessions", "idempotency_keys", "wallet_ledger"]) {
      if (table !== "contact_tags") expect(before[table], `${table} has no rows to move`).toBeGreaterThan(0);
    }
    const read = await readEverything(token, idFor);

    const res = await move(agencyUuid, "DB_EU");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.agency).toMatchObject({ agency_uuid: agencyUuid, name: "Moving agency", shard: "DB_EU", region: "eu" });
    expect(res.body.move).toEqual({ from: "DB", to: "DB_EU", rows: before });

    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM record_counts WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await shardDb("DB").prepare("SELECT state FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("state")).toBe("moved");
    expect(await env.DB.prepare("SELECT shard, moving_to, leftover_shard FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first()).toEqual({
      shard: "DB_EU",
      moving_to: null,
      leftover_shard: null,
    });

    // Both keys, the dashboard session and the operator API work as before, on the new shard.
    expect(await readEverything(token, idFor)).toEqual(read);
    expect((await api("GET", "/contacts", { token: reader.token })).status).toBe(200);
    expect((await browse("GET", KEYS_PATH, { cookie: session.cookie })).status).toBe(200);
    expect((await admin("GET", `/agencies/${agencyUuid}`)).body.agency).toMatchObject({ shard: "DB_EU", region: "eu" });
    expect((await admin("GET", `/agencies/${agencyUuid}/keys`)).body.keys).toHaveLength(3);
    // The idempotency key moved with its stored response: a retry replays it.
    const replay = await api("POST", "/fields", { token, body: { key: "size", label: "Size", type: "number" }, headers: { "Idempotency-Key": "move-1" } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const created = await newContact(token);
    expect(created.status).toBe(201);
    expect(await shardDb("DB_EU").prepare("SELECT count(*) AS n FROM contacts WHERE id = ?").bind(created.body.contact.contact_uuid).first("n")).toBe(1);
  });

  it("loses and doubles nothing while writes race the move: each is 201 or 503 agency_moving, and every 503 succeeds when retried", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    // A key whose limit never refuses: every write here is about the move.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 1_000 });
    // Enough rows that the copy takes a while.
    const filler = shardDb("DB").prepare(
      "INSERT INTO contacts (id, agency_id, first_name, last_name, tags, custom_fields, created_at, updated_at) VALUES (?, ?, 'Filler', 'Contact', '[]', '{}', ?, ?)",
    );
    const at = new Date().toISOString();
    await shardDb("DB").batch(Array.from({ length: 3_000 }, () => filler.bind(crypto.randomUUID(), agencyUuid, at, at)));

    let moving = true;
    const moved = move(agencyUuid, "DB_EU").finally(() => (moving = false));
    const answers: { status: number; code?: string; retryAfter: string | null; uuid?: string }[] = [];
    let n = 0;
    while (moving) {
      const res = await newContact(token, `Racer${++n}`);
      answers.push({ status: res.status, code: res.body.code, retryAfter: res.headers.get("Retry-After"), uuid: res.body.contact?.contact_uuid });
    }
    expect((await moved).status).toBe(200);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length, "no write met the move").toBeGreaterThan(0);
    for (const a of refused) expect(a).toMatchObject({ code: "agency_moving", retryAfter: "10" });
    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    // The retries, after the move.
    for (let i = 0; i < refused.length; i++) expect((await newContact(token, `Retry${i}`)).status).toBe(201);

    const accepted = answers.filter((a) => a.status === 201).map((a) => a.uuid!);
    const onNew = (await shardDb("DB_EU").prepare("SELECT id FROM contacts WHERE agency_id = ? AND first_name LIKE 'Racer%'").bind(agencyUuid).all<{ id: string }>()).results.map((r) => r.id);
    expect(onNew.sort()).toEqual(accepted.sort());
    const total = (await api("GET", "/contacts?limit=1", { token })).body.pagination.total;
    expect(total).toBe(3_000 + accepted.length + refused.length);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
  });

  it("rolls back a move killed midway once its heartbeat stops: the agency stays on its old shard, whole, and writes again", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { owner, idFor } = await populate("Interrupted agency", "DB");
    const { agencyUuid, token } = owner;
    const before = await rowsOn("DB", agencyUuid);
    const read = await readEverything(token, idFor);
    await killedMove(agencyUuid, "DB", "DB_EU", 12, start);
    expect((await rowsOn("DB_EU", agencyUuid)).contacts).toBeGreaterThan(0);

    // Meanwhile: writes 503 with Retry-After, reads served from the old copy.
    const refused = await newContact(token);
    expectError(refused, 503, WRITES_PAUSED, "agency_moving");
    expect(refused.headers.get("Retry-After")).toBe("10");
    expect((await api("GET", `/contacts/${idFor("/contacts/{contact_uuid}", "contact_uuid")}`, { token })).status).toBe(200);

    // A cron run while the heartbeat is fresh leaves the move alone.
    await runCron(start + 60_000);
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");

    // Two minutes without a heartbeat: the cron undoes it.
    setClock(start + 3 * 60_000);
    await runCron(start + 3 * 60_000);
    expect(await env.DB.prepare("SELECT shard, moving_to FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first()).toEqual({ shard: "DB", moving_to: null });
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await readEverything(token, idFor)).toEqual(read);
    expect((await newContact(token)).status).toBe(201);
  });

  it("leaves the old copy of a switched move to the cron when a gate may not have heard, and removes it two minutes after the switch", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { owner, idFor } = await populate("Switched agency", "DB");
    const { agencyUuid, token } = owner;
    const before = await rowsOn("DB", agencyUuid);
    const read = await readEverything(token, idFor);
    // Copied and switched, as moveAgency does when telling the keys' gates failed after the switch.
    await killedMove(agencyUuid, "DB", "DB_EU", agencyTables.length, start);
    await env.DB.prepare("UPDATE agency_directory SET shard = 'DB_EU', moving_to = NULL, leftover_shard = 'DB', move_heartbeat_at = ? WHERE agency_id = ?")
      .bind(new Date(start).toISOString(), agencyUuid)
      .run();
    const keys = await env.DB.prepare("SELECT id FROM directory_records WHERE agency_id = ? AND kind = 'api_key'").bind(agencyUuid).all<{ id: string }>();
    for (const { id } of keys.results) await invalidateKey(workerEnv, id);

    // The agency works on its new shard at once; a cron run within two minutes keeps the old copy.
    expect(await readEverything(token, idFor)).toEqual(read);
    await runCron(start + 60_000);
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);

    setClock(start + 3 * 60_000);
    await runCron(start + 3 * 60_000);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(before);
    expect(await env.DB.prepare("SELECT shard, leftover_shard, move_heartbeat_at FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first()).toEqual({
      shard: "DB_EU",
      leftover_shard: null,
      move_heartbeat_at: null,
    });
    expect(await shardDb("DB").prepare("SELECT state FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("state")).toBe("moved");
    expect((await newContact(token)).status).toBe(201);
  });

  it("refuses a write that reaches the old shard's fence before its key's gate heard of the move, with the same 503", async () => {
    const { agencyUuid, token } = await setupAgencyOn("DB");
    expect((await newContact(token)).status).toBe(201);
    // Fenced on the shard, gates not told: the write gets as far as D1, whose triggers refuse it.
    await freezeAgency(shardDb("DB"), agencyUuid, "moving", new Date().toISOString());
    const refused = await newContact(token);
    expectError(refused, 503, WRITES_PAUSED, "agency_moving");
    expect(refused.headers.get("Retry-After")).toBe("10");
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
  });

  it("undoes a move that fails, answering 500 with the reason: the agency stays whole where it was", async () => {
    const { owner } = await populate("Unlucky agency", "DB");
    const { agencyUuid, token } = owner;
    const before = await rowsOn("DB", agencyUuid);
    // The new shard already holds a row with the id of one of the agency's messages (another agency's).
    const squatter = await setupAgencyOn("DB_EU");
    const message = await shardDb("DB").prepare("SELECT * FROM messages WHERE agency_id = ?").bind(agencyUuid).first<Record<string, unknown>>();
    await shardDb("DB_EU")
      .prepare("INSERT INTO messages (id, agency_id, contact_id, channel, direction, body, created_at) VALUES (?, ?, 'someone', 'note', 'internal', 'squatting', ?)")
      .bind(message!.id, squatter.agencyUuid, new Date().toISOString())
      .run();

    const res = await move(agencyUuid, "DB_EU");
    expectError(res, 500, /^The move failed and was undone; the agency stays on shard DB\. .*UNIQUE constraint failed: messages\.id/, "internal_error");
    expect(await shardNameOf(agencyUuid)).toBe("DB");
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect(await shardDb("DB_EU").prepare("SELECT agency_id FROM messages WHERE id = ?").bind(message!.id).first("agency_id")).toBe(squatter.agencyUuid);
    expect((await newContact(token)).status).toBe(201);
  });

  it("refuses a second move while one runs, a move to the agency's own shard (409), and an unknown shard or agency", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    const [a, b] = await Promise.all([move(agencyUuid, "DB_EU"), move(agencyUuid, "DB_EU")]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expectError([a, b].find((r) => r.status === 409)!, 409, "The agency is already being moved; wait for that move to finish", "conflict");
    expectError(await move(agencyUuid, "DB_EU"), 409, "The agency already lives on shard DB_EU", "conflict");
    expectError(await move(agencyUuid, "DB_NOPE"), 400, "Unknown shard: DB_NOPE. GET /admin/v1/shards lists them.", "validation_error");
    expectError(await move(agencyUuid, "nope"), 400, undefined, "validation_error");
    expectError(await move(crypto.randomUUID(), "DB"), 404, "Agency not found", "not_found");
    expect(await shardNameOf(agencyUuid)).toBe("DB_EU");
  });

  it("moves an agency away and back: whole and writable on its first shard again", async () => {
    const { owner, idFor } = await populate("Round trip agency", "DB");
    const before = await rowsOn("DB", owner.agencyUuid);
    const read = await readEverything(owner.token, idFor);
    expect((await move(owner.agencyUuid, "DB_EU")).status).toBe(200);
    expect((await move(owner.agencyUuid, "DB")).status).toBe(200);
    expect(await rowsOn("DB", owner.agencyUuid)).toEqual(before);
    expect(await rowsOn("DB_EU", owner.agencyUuid)).toEqual(nothing);
    expect(await readEverything(owner.token, idFor)).toEqual(read);
    expect((await newContact(owner.token)).status).toBe(201);
  });
});

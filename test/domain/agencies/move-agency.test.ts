import { env } from "cloudflare:workers";
import { introspectWorkflow } from "cloudflare:test";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { COPY_START, copyRows, countAgencyRows, freezeAgency, PURGE_START, purgeRows, type CopyCursor } from "@/db/agency-copy";
import { agencyTables, derivedAgencyTables } from "@/db/agency-tables";
import type { Env } from "@/env";
import { MOVE_STEP_ROWS } from "@/domain/agencies/move-agency";
import { invalidateKey } from "@/lib/auth/gate";
import { restoreClock, setClock } from "../../helpers/clock";
import { browse, KEYS_PATH, signIn } from "../../helpers/dashboard";
import { createKey, setupAgencyOn } from "../../helpers/factories";
import { admin, api, expectError, type ApiResponse } from "../../helpers/http";
import { populate, readEverything, seedContacts } from "../../helpers/populate";
import { breather, latestMoveOf, moveEnded, shardDb, shardNameOf } from "../../helpers/shards";
import { runCron } from "../../helpers/voice-queue";

const workerEnv = env as unknown as Env;
const workflow = workerEnv.MOVE_WORKFLOW;
const WRITES_PAUSED = "The agency's data is being moved to another database and writes are paused. Retry after 10 seconds.";
const DIRECTORY_TABLES = ["agency_directory", "directory_records", "agency_freezes", "sms_numbers", "agency_moves"];

afterEach(() => restoreClock());

const move = (agencyUuid: string, shard: string) => admin("POST", `/agencies/${agencyUuid}/move`, { shard });
const newContact = (token: string, name = "Grace") => api("POST", "/contacts", { token, body: { first_name: name, last_name: "Hopper" } });

/** Polls the directory until the agency's move left no copy to remove (a failed move deletes its partial copy after it ends). */
async function cleanedUp(agencyUuid: string, timeoutMs = 30_000) {
  const deadline = performance.now() + timeoutMs;
  while ((await directoryOf(agencyUuid))?.leftover_shard) {
    if (performance.now() > deadline) throw new Error(`the move's leftover copy was not removed within ${timeoutMs} ms`);
    await breather(10);
  }
}

/** The agency's rows per table on a shard (every table a move copies). */
const rowsOn = (shard: string, agencyUuid: string) => countAgencyRows(shardDb(shard), agencyUuid, "all");
const nothing = Object.fromEntries(agencyTables.map((t) => [t.name, 0]));
const total = (rows: Record<string, number>) => Object.values(rows).reduce((n, c) => n + c, 0);

const directoryOf = (agencyUuid: string) =>
  env.DB.prepare("SELECT shard, moving_to, leftover_shard FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first();

/** The state a move leaves when its Worker dies after copying `tablesCopied` tables, with no workflow to go on: directory marked, old shard fenced, a partial copy. */
async function killedMove(agencyUuid: string, from: string, to: string, tablesCopied: number, heartbeatAt: number) {
  await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?").bind(to, new Date(heartbeatAt).toISOString(), agencyUuid).run();
  await freezeAgency(shardDb(from), agencyUuid, "moving", new Date(heartbeatAt).toISOString());
  const keys = await env.DB.prepare("SELECT id FROM directory_records WHERE agency_id = ? AND kind = 'api_key'").bind(agencyUuid).all<{ id: string }>();
  for (const { id } of keys.results) await invalidateKey(workerEnv, id);
  for (let cursor: CopyCursor = COPY_START; cursor.table < tablesCopied; ) {
    cursor = (await copyRows(shardDb(from), shardDb(to), agencyUuid, cursor, MOVE_STEP_ROWS)).next;
  }
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

describe("a page of a move's copy", () => {
  it("copies nothing twice when run again from the same cursor, as a step retried after a crash is", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    await seedContacts(shardDb("DB"), agencyUuid, 2_500);
    const first = await copyRows(shardDb("DB"), shardDb("DB_EU"), agencyUuid, COPY_START, 2_000);
    expect(first.done).toBe(false);
    const again = await copyRows(shardDb("DB"), shardDb("DB_EU"), agencyUuid, COPY_START, 2_000);
    expect({ ...again, next: { ...again.next, rows: 0 } }).toEqual({ ...first, next: { ...first.next, rows: 0 } });
    expect(total(await rowsOn("DB_EU", agencyUuid))).toBe(2_000);
    let cursor = first.next;
    for (;;) {
      const page = await copyRows(shardDb("DB"), shardDb("DB_EU"), agencyUuid, cursor, 2_000);
      cursor = page.next;
      if (page.done) break;
    }
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(await rowsOn("DB", agencyUuid));
    for (let from = PURGE_START, done = false; !done; ) ({ next: from, done } = await purgeRows(shardDb("DB_EU"), agencyUuid, from, 10_000));
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
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
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.agency).toMatchObject({ agency_uuid: agencyUuid, name: "Moving agency", shard: "DB", region: "wnam" });
    const ended = await moveEnded(agencyUuid);
    expect(ended).toMatchObject({ move_uuid: res.body.move.move_uuid, state: "done", rows_copied: total(before), rows_total: total(before), error: null });

    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM record_counts WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await shardDb("DB").prepare("SELECT state FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("state")).toBe("moved");
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB_EU", moving_to: null, leftover_shard: null });

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

  it("moves 20,000 contacts while other agencies read and write, answered as it runs; the moving agency's reads answer and every contact arrives", async () => {
    const mover = await setupAgencyOn("DB", "Large agency");
    await seedContacts(shardDb("DB"), mover.agencyUuid, 20_000);
    const sample = (
      await shardDb("DB").prepare("SELECT * FROM contacts WHERE agency_id = ? ORDER BY random() LIMIT 50").bind(mover.agencyUuid).all<Record<string, unknown>>()
    ).results;
    // Other agencies on both shards: the one the agency leaves and the one it goes to.
    const others = await Promise.all(
      ["DB", "DB_EU"].map(async (shard) => {
        const agency = await setupAgencyOn(shard, `Neighbour on ${shard}`);
        const key = await createKey(agency.agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 1_000 });
        return { ...agency, token: key.token };
      }),
    );
    const moverReader = await createKey(mover.agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 1_000 });
    const before = await rowsOn("DB", mover.agencyUuid);
    expect(before.contacts).toBe(20_000);

    const started = await move(mover.agencyUuid, "DB_EU");
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const startedAt = performance.now();
    let running = true;
    const ending = moveEnded(mover.agencyUuid).finally(() => (running = false));

    const answered: { who: string; status: number; ms: number; doneAt: number }[] = [];
    const timed = async (who: string, request: () => Promise<ApiResponse<any>>) => {
      const t0 = performance.now();
      const res = await request();
      answered.push({ who, status: res.status, ms: performance.now() - t0, doneAt: performance.now() });
      return res;
    };
    const sampleId = sample[0]!.id as string;
    const traffic = async (lane: number) => {
      for (let i = 0; running; i++) {
        const other = others[(lane + i) % others.length]!;
        await timed("other", () => api("GET", "/contacts?limit=20", { token: other.token }));
        await timed("other", () => newContact(other.token, `Busy${lane}-${i}`));
        const read = await timed("mover-read", () => api("GET", `/contacts/${sampleId}`, { token: moverReader.token }));
        expect(read.body.contact?.contact_uuid, JSON.stringify(read.body)).toBe(sampleId);
        await timed("mover-write", () => newContact(moverReader.token, "Late"));
        await breather();
      }
    };
    await Promise.all([traffic(0), traffic(1), traffic(2)]);
    const ended = await ending;
    const duration = performance.now() - startedAt;
    expect(ended).toMatchObject({ state: "done", rows_copied: total(before), rows_total: total(before) });

    const byOthers = answered.filter((a) => a.who === "other");
    // Answered while the move ran, each in a fraction of the move's time: none was held until it ended.
    expect(byOthers.filter((a) => a.doneAt - startedAt < duration * 0.9).length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...byOthers.map((a) => a.ms))).toBeLessThan(duration / 2);
    expect(byOthers.filter((a) => a.status !== 200 && a.status !== 201)).toEqual([]);
    expect(answered.filter((a) => a.who === "mover-read").every((a) => a.status === 200)).toBe(true);
    const writes = answered.filter((a) => a.who === "mover-write");
    expect(writes.filter((a) => a.status === 503).length, "no write met the move").toBeGreaterThan(0);

    // Every contact arrived: counts per table, and a sample compared column by column.
    const after = await rowsOn("DB_EU", mover.agencyUuid);
    const accepted = writes.filter((a) => a.status === 201).length;
    expect(after).toEqual({ ...before, contacts: 20_000 + accepted, events: before.events! + accepted });
    for (const contact of sample) {
      expect(await shardDb("DB_EU").prepare("SELECT * FROM contacts WHERE id = ?").bind(contact.id).first()).toEqual(contact);
    }
    expect(await rowsOn("DB", mover.agencyUuid)).toEqual(nothing);
    expect((await api("GET", "/contacts?limit=1", { token: mover.token })).body.pagination.total).toBe(20_000 + accepted);
    expect((await api("GET", "/contacts?tag=seeded&limit=1", { token: mover.token })).body.pagination.total).toBe(Math.ceil(20_000 / 3));
  });

  it("loses and doubles nothing while writes race the move: each is 201 or 503 agency_moving, and every 503 succeeds when retried", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    // A key whose limit never refuses: every write here is about the move.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 1_000 });
    // Enough rows that the copy takes a while.
    await seedContacts(shardDb("DB"), agencyUuid, 3_000);

    expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
    let moving = true;
    const ending = moveEnded(agencyUuid).finally(() => (moving = false));
    const answers: { status: number; code?: string; retryAfter: string | null; uuid?: string }[] = [];
    let n = 0;
    while (moving) {
      const res = await newContact(token, `Racer${++n}`);
      answers.push({ status: res.status, code: res.body.code, retryAfter: res.headers.get("Retry-After"), uuid: res.body.contact?.contact_uuid });
      await breather();
    }
    expect((await ending).state).toBe("done");
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length, "no write met the move").toBeGreaterThan(0);
    for (const a of refused) expect(a).toMatchObject({ code: "agency_moving", retryAfter: "10" });
    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    // The retries, after the move.
    for (let i = 0; i < refused.length; i++) expect((await newContact(token, `Retry${i}`)).status).toBe(201);

    const accepted = answers.filter((a) => a.status === 201).map((a) => a.uuid!);
    const onNew = (await shardDb("DB_EU").prepare("SELECT id FROM contacts WHERE agency_id = ? AND first_name LIKE 'Racer%'").bind(agencyUuid).all<{ id: string }>()).results.map((r) => r.id);
    expect(onNew.sort()).toEqual(accepted.sort());
    const listed = (await api("GET", "/contacts?limit=1", { token })).body.pagination.total;
    expect(listed).toBe(3_000 + accepted.length + refused.length);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
  });

  it("resumes a move whose Worker restarted mid-copy: the page it had written is found on the new shard, not copied twice", async () => {
    const { agencyUuid, token } = await setupAgencyOn("DB");
    await seedContacts(shardDb("DB"), agencyUuid, 12_000);
    const before = await rowsOn("DB", agencyUuid);
    const introspector = await introspectWorkflow(workflow);
    try {
      // The second page's first attempt is lost, as a restarted Worker's would be; the engine runs it again.
      await introspector.modifyAll(async (m) => m.mockStepError({ name: "copy rows", index: 2 }, new Error("The Worker restarted"), 1));
      expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
      const [instance] = await introspector.get();
      const firstPage = (await instance!.waitForStepResult({ name: "copy rows", index: 1 })) as { next: CopyCursor; copied: number };
      expect(firstPage.copied).toBe(MOVE_STEP_ROWS);
      // What the lost attempt wrote before the Worker went away (its retry waits two seconds).
      await copyRows(shardDb("DB"), shardDb("DB_EU"), agencyUuid, firstPage.next, MOVE_STEP_ROWS);
      await instance!.waitForStatus("complete");
    } finally {
      await introspector.dispose();
    }
    expect(await moveEnded(agencyUuid)).toMatchObject({ state: "done", rows_copied: total(before), rows_total: total(before) });
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB", agencyUuid)).toEqual(nothing);
    expect((await api("GET", "/contacts?limit=1", { token })).body.pagination.total).toBe(12_000);
    expect((await newContact(token)).status).toBe(201);
  });

  it("rolls back when a step fails for good: the agency stays whole on its old shard, writes again, and nothing is left on the target", async () => {
    const { owner, idFor } = await populate("Failing agency", "DB");
    const { agencyUuid, token } = owner;
    await seedContacts(shardDb("DB"), agencyUuid, 6_000);
    const before = await rowsOn("DB", agencyUuid);
    const read = await readEverything(token, idFor);
    const introspector = await introspectWorkflow(workflow);
    try {
      await introspector.modifyAll(async (m) => {
        await m.disableRetryDelays();
        await m.mockStepError({ name: "copy rows", index: 2 }, new Error("D1_ERROR: Network connection lost."));
      });
      expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
      const [instance] = await introspector.get();
      await instance!.waitForStatus("complete");
      expect(await instance!.getOutput()).toEqual({ state: "failed", error: "D1_ERROR: Network connection lost." });
    } finally {
      await introspector.dispose();
    }
    expect(await latestMoveOf(agencyUuid)).toMatchObject({ state: "failed", error: "D1_ERROR: Network connection lost.", rows_copied: MOVE_STEP_ROWS, finished_at: expect.any(String) });
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: null, leftover_shard: null });
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect(await shardDb("DB_EU").prepare("SELECT count(*) AS n FROM record_counts WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await readEverything(token, idFor)).toEqual(read);
    expect((await newContact(token)).status).toBe(201);
    // And it can be moved again.
    expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
    expect((await moveEnded(agencyUuid)).state).toBe("done");
    expect(await shardNameOf(agencyUuid)).toBe("DB_EU");
  });

  it("undoes a move whose copy does not add up, without waiting out the retries: the agency stays whole where it was", async () => {
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

    expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
    const ended = await moveEnded(agencyUuid, 10_000);
    expect(ended).toMatchObject({ state: "failed", error: `Verification failed: messages has ${before.messages} rows on the old shard and ${before.messages! - 1} on the new one` });
    await cleanedUp(agencyUuid);
    expect(await shardNameOf(agencyUuid)).toBe("DB");
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect(await shardDb("DB_EU").prepare("SELECT agency_id FROM messages WHERE id = ?").bind(message!.id).first("agency_id")).toBe(squatter.agencyUuid);
    expect((await newContact(token)).status).toBe(201);
  });

  it("refuses a move to the agency's own shard (409), and an unknown shard or agency", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    expectError(await move(agencyUuid, "DB"), 409, "The agency already lives on shard DB", "conflict");
    expectError(await move(agencyUuid, "DB_NOPE"), 400, "Unknown shard: DB_NOPE. GET /admin/v1/shards lists them.", "validation_error");
    expectError(await move(agencyUuid, "nope"), 400, undefined, "validation_error");
    expectError(await move(crypto.randomUUID(), "DB"), 404, "Agency not found", "not_found");
    expect(await latestMoveOf(agencyUuid)).toBeNull();
  });

  it("moves an agency away and back: whole and writable on its first shard again", async () => {
    const { owner, idFor } = await populate("Round trip agency", "DB");
    const before = await rowsOn("DB", owner.agencyUuid);
    const read = await readEverything(owner.token, idFor);
    expect((await move(owner.agencyUuid, "DB_EU")).status).toBe(202);
    expect((await moveEnded(owner.agencyUuid)).state).toBe("done");
    expect((await move(owner.agencyUuid, "DB")).status).toBe(202);
    expect((await moveEnded(owner.agencyUuid)).state).toBe("done");
    expect(await rowsOn("DB", owner.agencyUuid)).toEqual(before);
    expect(await rowsOn("DB_EU", owner.agencyUuid)).toEqual(nothing);
    expect(await readEverything(owner.token, idFor)).toEqual(read);
    expect((await newContact(owner.token)).status).toBe(201);
  });
});

describe("the cron's part in moves", () => {
  it("undoes a move whose workflow stopped for good, once its heartbeat is two minutes old, then removes its partial copy", async () => {
    const { owner, idFor } = await populate("Stranded agency", "DB");
    const { agencyUuid, token } = owner;
    await seedContacts(shardDb("DB"), agencyUuid, 6_000);
    const before = await rowsOn("DB", agencyUuid);
    // Disposed at the end: disposing removes the instances it watched, and the cron asks for this one.
    const introspector = await introspectWorkflow(workflow);
    onTestFinished(() => introspector.dispose());
    // A copy step and the rollback itself keep failing: the workflow errors with the agency fenced.
    await introspector.modifyAll(async (m) => {
      await m.disableRetryDelays();
      await m.mockStepError({ name: "copy rows", index: 2 }, new Error("D1 is unreachable"));
      await m.mockStepError({ name: "roll back" }, new Error("D1 is unreachable"));
    });
    expect((await move(agencyUuid, "DB_EU")).status).toBe(202);
    const [instance] = await introspector.get();
    await instance!.waitForStatus("errored");
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: "DB_EU", leftover_shard: null });
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");
    expect((await api("GET", `/contacts/${idFor("/contacts/{contact_uuid}", "contact_uuid")}`, { token })).status).toBe(200);

    // A cron run within two minutes of the last heartbeat leaves it alone.
    const heartbeat = Date.parse((await env.DB.prepare("SELECT move_heartbeat_at AS at FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first<{ at: string }>())!.at);
    await runCron(heartbeat + 60_000);
    expect((await directoryOf(agencyUuid))!.moving_to).toBe("DB_EU");

    setClock(heartbeat + 3 * 60_000);
    await runCron(heartbeat + 3 * 60_000);
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: null, leftover_shard: "DB_EU" });
    expect(await latestMoveOf(agencyUuid)).toMatchObject({ state: "failed", error: "The move's workflow stopped (errored) before it finished; the cron undid the move" });
    expect((await newContact(token)).status).toBe(201);
    expect((await rowsOn("DB_EU", agencyUuid)).contacts).toBeGreaterThan(0);
    // A new move waits for the partial copy to go.
    expectError(await move(agencyUuid, "DB_EU"), 409, "The agency's previous move is still removing the copy it left on shard DB_EU; retry in a few minutes", "conflict");

    setClock(heartbeat + 6 * 60_000);
    await runCron(heartbeat + 6 * 60_000);
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: null, leftover_shard: null });
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect(await rowsOn("DB", agencyUuid)).toEqual({ ...before, contacts: before.contacts! + 1, events: before.events! + 1 });
  });

  it("rolls back a move killed midway with no workflow to go on once its heartbeat stops: the agency stays on its old shard, whole, and writes again", async () => {
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

    // Two minutes without a heartbeat: the cron undoes it, and removes the partial copy on a later run.
    setClock(start + 3 * 60_000);
    await runCron(start + 3 * 60_000);
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: null, leftover_shard: "DB_EU" });
    expect(await rowsOn("DB", agencyUuid)).toEqual(before);
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM agency_freezes WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect(await readEverything(token, idFor)).toEqual(read);
    setClock(start + 6 * 60_000);
    await runCron(start + 6 * 60_000);
    expect(await directoryOf(agencyUuid)).toEqual({ shard: "DB", moving_to: null, leftover_shard: null });
    expect(await rowsOn("DB_EU", agencyUuid)).toEqual(nothing);
    expect((await newContact(token)).status).toBe(201);
  });

  it("removes the old copy a switched move left, two minutes after its switch, when its workflow did not", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { owner, idFor } = await populate("Switched agency", "DB");
    const { agencyUuid, token } = owner;
    const before = await rowsOn("DB", agencyUuid);
    const read = await readEverything(token, idFor);
    // Copied and switched by a Worker that then went away.
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
});

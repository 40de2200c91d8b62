import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { admin, api, expectError } from "../helpers/http";
import { seedContacts } from "../helpers/populate";
import { setupAgencyOn } from "../helpers/factories";
import { dbOf, latestMoveOf, moveEnded, shardDb, shardNameOf, TEST_SHARDS } from "../helpers/shards";

const createAgency = (body: Record<string, unknown>) => admin("POST", "/agencies", { name: "Placed Agency", timezone: "Europe/Berlin", ...body });

/** Every test that closes a shard opens it again, so other tests keep both. */
afterEach(async () => {
  for (const { name } of TEST_SHARDS) await admin("PATCH", `/shards/${name}`, { open: true });
});

describe("placing an agency", () => {
  it("places it on the open shard of the region asked for, and says so", async () => {
    for (const { name, region } of TEST_SHARDS) {
      const res = await createAgency({ region });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.agency).toMatchObject({ shard: name, region });
      expect(await shardNameOf(res.body.agency.agency_uuid)).toBe(name);
    }
  });

  it("places it on the shard named, open or closed (closing stops only automatic placement)", async () => {
    for (const { name, region } of TEST_SHARDS) {
      expect((await createAgency({ shard: name })).body.agency).toMatchObject({ shard: name, region });
    }
    expect((await admin("PATCH", "/shards/DB_EU", { open: false })).status).toBe(200);
    expect((await createAgency({ shard: "DB_EU" })).body.agency).toMatchObject({ shard: "DB_EU" });
  });

  it("puts its records on its shard only: the agency row, its keys, its contacts", async () => {
    for (const { name } of TEST_SHARDS) {
      const other = TEST_SHARDS.find((s) => s.name !== name)!.name;
      const { agencyUuid, keyUuid, token } = await setupAgencyOn(name);
      const contact = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace" } });
      expect(contact.status).toBe(201);
      for (const [table, id] of [["agencies", agencyUuid], ["api_keys", keyUuid], ["contacts", contact.body.contact.contact_uuid]]) {
        expect(await shardDb(name).prepare(`SELECT count(*) AS n FROM ${table} WHERE id = ?`).bind(id).first("n"), `${table} on ${name}`).toBe(1);
        expect(await shardDb(other).prepare(`SELECT count(*) AS n FROM ${table} WHERE id = ?`).bind(id).first("n"), `${table} on ${other}`).toBe(0);
      }
      // The directory, in the first shard, knows the agency and its key.
      expect(await env.DB.prepare("SELECT shard FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first("shard")).toBe(name);
      expect(await env.DB.prepare("SELECT agency_id FROM directory_records WHERE id = ? AND kind = 'api_key'").bind(keyUuid).first("agency_id")).toBe(agencyUuid);
    }
  });

  it("places an agency asked for by no region on an open shard, and only on open ones", async () => {
    const placed = await createAgency({});
    expect(placed.status).toBe(201);
    expect(TEST_SHARDS.map((s) => s.name)).toContain(placed.body.agency.shard);
    expect((await admin("PATCH", "/shards/DB", { open: false })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await createAgency({})).body.agency.shard).toBe("DB_EU");
    expectError(await createAgency({ region: "wnam" }), 400, "No open shard serves region wnam", "validation_error");
    expect((await admin("PATCH", "/shards/DB_EU", { open: false })).status).toBe(200);
    expectError(await createAgency({}), 400, "No open shard takes new agencies", "validation_error");
  });

  it.each([
    ["a region no shard serves", { region: "apac" }, "No open shard serves region apac"],
    ["an unknown region", { region: "mars" }, /^region/],
    ["an unknown shard", { shard: "DB_NOPE" }, "Unknown shard: DB_NOPE. GET /admin/v1/shards lists them."],
    ["a shard name that cannot be a binding", { shard: "shard-1" }, "shard must be a binding name: DB or DB_<NAME> (capital letters, digits, _)"],
    ["both a region and a shard", { region: "eu", shard: "DB_EU" }, "Give region or shard, not both"],
  ])("refuses %s with 400 and creates nothing", async (_case, body, message) => {
    const before = await admin("GET", "/agencies");
    expectError(await createAgency(body), 400, message, "validation_error");
    expect((await admin("GET", "/agencies")).body.agencies).toHaveLength(before.body.agencies.length);
  });
});

describe("GET /admin/v1/agencies", () => {
  it("lists agencies of every shard, oldest first, each with its shard and region", async () => {
    const eu = await setupAgencyOn("DB_EU", "Listed EU");
    const us = await setupAgencyOn("DB", "Listed US");
    const { agencies } = (await admin("GET", "/agencies")).body as { agencies: Record<string, string>[] };
    const mine = agencies.filter((a) => a.agency_uuid === eu.agencyUuid || a.agency_uuid === us.agencyUuid);
    expect(mine).toEqual([
      expect.objectContaining({ agency_uuid: eu.agencyUuid, name: "Listed EU", shard: "DB_EU", region: "eu" }),
      expect.objectContaining({ agency_uuid: us.agencyUuid, name: "Listed US", shard: "DB", region: "wnam" }),
    ]);
    const created = agencies.map((a) => a.created_at);
    expect(created).toEqual([...created].sort());
  });

  it("answers 404 for an unknown agency", async () => {
    expectError(await admin("GET", `/agencies/${crypto.randomUUID()}`), 404, "Agency not found", "not_found");
  });
});

describe("POST /admin/v1/agencies/{agency_uuid}/move", () => {
  const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const move = (agencyUuid: string, shard: string) => admin("POST", `/agencies/${agencyUuid}/move`, { shard });

  it("answers 202 at once with the agency, still where it was, and its move, copying; GET shows the move to its end", async () => {
    const { agencyUuid } = await setupAgencyOn("DB", "Moving Agency");
    expect((await admin("GET", `/agencies/${agencyUuid}`)).body.move).toBeNull();

    const res = await move(agencyUuid, "DB_EU");
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({
      success: true,
      agency: {
        agency_uuid: agencyUuid,
        name: "Moving Agency",
        timezone: "America/New_York",
        shard: "DB",
        region: "wnam",
        sms_number: null,
        created_at: iso,
      },
      move: {
        move_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        from: "DB",
        to: "DB_EU",
        state: "copying",
        rows_copied: 0,
        rows_total: null,
        error: null,
        started_at: iso,
        updated_at: iso,
        finished_at: null,
      },
    });

    const ended = await moveEnded(agencyUuid);
    expect(ended).toEqual({
      ...res.body.move,
      state: "done",
      rows_copied: ended.rows_total,
      rows_total: expect.any(Number),
      updated_at: iso,
      finished_at: iso,
    });
    expect(ended.rows_total).toBeGreaterThan(0);
    const got = await admin("GET", `/agencies/${agencyUuid}`);
    expect(got.body).toEqual({ success: true, agency: { ...res.body.agency, shard: "DB_EU", region: "eu" }, move: ended });
  });

  it("refuses a second move while one runs with 409, and starts only one", async () => {
    const { agencyUuid } = await setupAgencyOn("DB");
    // Enough rows that the first move is still running when the third request arrives.
    await seedContacts(shardDb("DB"), agencyUuid, 6_000);
    const answers = await Promise.all([move(agencyUuid, "DB_EU"), move(agencyUuid, "DB_EU"), move(agencyUuid, "DB")]);
    const started = answers.filter((a) => a.status === 202);
    expect(started).toHaveLength(1);
    const message = `The agency is already being moved; wait for that move to finish (GET /admin/v1/agencies/${agencyUuid} shows its progress)`;
    for (const refused of answers.filter((a) => a.status !== 202)) {
      if (refused.body.error?.startsWith("The agency already lives")) expectError(refused, 409, "The agency already lives on shard DB", "conflict");
      else expectError(refused, 409, message, "conflict");
    }
    expectError(await move(agencyUuid, "DB_EU"), 409, message, "conflict");
    expect((await latestMoveOf(agencyUuid))!.move_uuid).toBe(started[0]!.body.move.move_uuid);
    expect(await moveEnded(agencyUuid)).toMatchObject({ state: "done", to: "DB_EU" });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM agency_moves WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(1);
    expect(await shardNameOf(agencyUuid)).toBe("DB_EU");
  });
});

describe("shards", () => {
  it("lists every shard with its region, open state, agency count and size", async () => {
    await setupAgencyOn("DB_EU");
    const res = await admin("GET", "/shards");
    expect(res.status).toBe(200);
    const counts = Object.fromEntries(
      (await env.DB.prepare("SELECT shard, count(*) AS n FROM agency_directory GROUP BY shard").all<{ shard: string; n: number }>()).results.map((r) => [r.shard, r.n]),
    );
    expect(res.body.shards).toEqual(
      TEST_SHARDS.map(({ name, region }) => ({
        name,
        region,
        open: true,
        bound: true,
        agency_count: counts[name] ?? 0,
        size_bytes: expect.any(Number),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      })),
    );
    for (const shard of res.body.shards) expect(shard.size_bytes).toBeGreaterThan(0);
  });

  it("registers a bound database again (200), and refuses a binding the Worker does not have", async () => {
    const again = await admin("PUT", "/shards/DB_EU", { region: "eu", open: true });
    expect(again.status).toBe(200);
    expect(again.body.shard).toMatchObject({ name: "DB_EU", region: "eu", open: true, bound: true });
    expectError(
      await admin("PUT", "/shards/DB_NOPE", { region: "weur" }),
      400,
      "This Worker has no D1 binding named DB_NOPE: add it to wrangler.toml and deploy first",
      "validation_error",
    );
    expectError(await admin("PUT", "/shards/DB_EU", { region: "mars" }), 400, /^region/, "validation_error");
    expect((await admin("GET", "/shards")).body.shards.map((s: { name: string }) => s.name)).toEqual(["DB", "DB_EU"]);
  });

  it("closes and opens a shard, records its region, and answers 404 for an unregistered one", async () => {
    const closed = await admin("PATCH", "/shards/DB_EU", { open: false });
    expect(closed.body.shard).toMatchObject({ name: "DB_EU", open: false, region: "eu" });
    expectError(await createAgency({ region: "eu" }), 400, "No open shard serves region eu");
    expect((await admin("PATCH", "/shards/DB_EU", { open: true })).body.shard).toMatchObject({ open: true });
    expect((await createAgency({ region: "eu" })).body.agency.shard).toBe("DB_EU");
    expectError(await admin("PATCH", "/shards/DB_NOPE", { open: false }), 404, "Shard not found: DB_NOPE", "not_found");
    expectError(await admin("PATCH", "/shards/DB_EU", { open: "yes" }), 400, undefined, "validation_error");
  });
});

describe("an agency's shard on the request path", () => {
  it("costs a request no directory read: the key's gate holds the shard", async () => {
    const { agencyUuid, token } = await setupAgencyOn("DB_EU");
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    // With the directory entry gone, a key whose gate already knows its shard keeps working.
    const entry = await env.DB.prepare("SELECT * FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).first<Record<string, unknown>>();
    await env.DB.prepare("DELETE FROM agency_directory WHERE agency_id = ?").bind(agencyUuid).run();
    try {
      expect((await api("GET", "/contacts", { token })).status).toBe(200);
    } finally {
      await env.DB.prepare("INSERT INTO agency_directory (agency_id, shard, created_at) VALUES (?, ?, ?)").bind(agencyUuid, entry!.shard, entry!.created_at).run();
    }
    expect(await dbOf(agencyUuid)).toBe(shardDb("DB_EU"));
  });
});

import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import { api, BASE, expectError } from "../../helpers/http";
import { setupAgency, type TestAgency } from "../../helpers/factories";
import { createContact, createPath } from "../../helpers/path-factories";
import { dbOf, shardDb, TEST_SHARDS } from "../../helpers/shards";
import { createEndpoint, webhookEnv } from "../../helpers/webhooks";
import { apiWithEnv } from "../../helpers/voice-factories";

const BULK_SIZE = "contacts must be an array of 1 to 100 contacts";

const bulk = (agency: TestAgency, contacts: unknown[], headers: Record<string, string> = {}) =>
  api("POST", "/contacts/bulk", { token: agency.token, body: { contacts }, headers });

async function bulkOk(agency: TestAgency, contacts: unknown[], headers: Record<string, string> = {}) {
  const res = await bulk(agency, contacts, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  expect(res.body.results.map((r: { index: number }) => r.index)).toEqual(contacts.map((_, i) => i));
  return res.body.results as { index: number; status: string; contact_uuid: string | null; error: string | null; code: string | null }[];
}

/** The agency's events of a type, counted in its database. */
async function eventCount(agency: TestAgency, type: string) {
  const db = await dbOf(agency.agencyUuid);
  const row = await db.prepare("SELECT count(*) AS n FROM events WHERE agency_id = ? AND type = ?").bind(agency.agencyUuid, type).first<{ n: number }>();
  return row!.n;
}

async function liveContacts(agency: TestAgency) {
  const db = await dbOf(agency.agencyUuid);
  return (
    await db
      .prepare("SELECT id, first_name, last_name, email, phone, external_id, tags, custom_fields FROM contacts WHERE agency_id = ? AND deleted_at IS NULL ORDER BY external_id")
      .bind(agency.agencyUuid)
      .all<Record<string, string | null>>()
  ).results;
}

const hundred = () =>
  Array.from({ length: 100 }, (_, i) => ({
    first_name: "Bulk",
    last_name: `No ${i}`,
    email: `bulk${i}@example.com`,
    phone: `+1415556${String(i).padStart(4, "0")}`,
    external_id: `crm-${String(i).padStart(3, "0")}`,
    tags: ["synced", `batch-${i % 3}`],
  }));

describe("POST /contacts/bulk", () => {
  it("creates 100 new contacts with their events, then finds the same 100 unchanged and writes nothing", async () => {
    const agency = await setupAgency();
    const items = hundred();
    const created = await bulkOk(agency, items);
    expect(created.every((r) => r.status === "created" && r.error === null && r.code === null)).toBe(true);
    expect(new Set(created.map((r) => r.contact_uuid)).size).toBe(100);
    expect(await eventCount(agency, "contact.created")).toBe(100);
    const list = await api("GET", "/contacts?limit=1&tag=batch-1", { token: agency.token });
    expect(list.body.pagination.total).toBe(33);
    const one = await api("GET", `/contacts/${created[7]!.contact_uuid}`, { token: agency.token });
    expect(one.body.contact).toMatchObject({ first_name: "Bulk", last_name: "No 7", email: "bulk7@example.com", phone: "+14155560007", external_id: "crm-007", tags: ["synced", "batch-1"] });

    const again = await bulkOk(agency, items);
    expect(again.map((r) => [r.status, r.contact_uuid])).toEqual(created.map((r) => ["unchanged", r.contact_uuid]));
    expect(await eventCount(agency, "contact.created")).toBe(100);
    expect(await eventCount(agency, "contact.updated")).toBe(0);
    expect((await api("GET", "/contacts?limit=1", { token: agency.token })).body.pagination.total).toBe(100);
  });

  it("applies the valid items of a mix and answers each bad one with the message of the single-contact routes", async () => {
    const agency = await setupAgency();
    const held = await createContact(agency.token, { email: "held@example.com", phone: "+14155550900", external_id: "crm-held" });
    const existing = await createContact(agency.token, { first_name: "Old", last_name: "Name", external_id: "crm-existing", custom_fields: {} });
    const field = await api("POST", "/fields", { token: agency.token, body: { key: "budget", label: "Budget", type: "number" } });
    expect(field.status).toBe(201);
    const path = await createPath(agency.token);
    const results = await bulkOk(agency, [
      { first_name: "New", last_name: "Person", email: "new@example.com", path_uuid: path.path_uuid, custom_fields: { budget: 5 } },
      { first_name: "Renamed", last_name: "Name", external_id: "crm-existing", custom_fields: { budget: 7 } },
      { first_name: "Bad", last_name: "Email", email: "not-an-email" },
      { last_name: "Nameless" },
      // New by external_id (matched first), so created, but the email or phone is another contact's.
      { first_name: "Clash", last_name: "Email", external_id: "crm-clash-1", email: "HELD@example.com" },
      { first_name: "Clash", last_name: "Phone", external_id: "crm-clash-2", phone: "(415) 555-0900" },
      { first_name: "Clash", last_name: "External", external_id: "crm-held", match_on: "email", email: "other@example.com" },
      { first_name: "Lost", last_name: "Path", path_uuid: crypto.randomUUID() },
      { first_name: "Odd", last_name: "Field", custom_fields: { colour: "red" } },
      { first_name: "Wrong", last_name: "Type", custom_fields: { budget: "lots" } },
      { first_name: "No", last_name: "Key", match_on: "phone", email: "nokey@example.com" },
      { first_name: "Bad", last_name: "Match", match_on: "name" },
      { first_name: "Unknown", last_name: "Field", nickname: "x" },
      "not an object",
    ]);
    expect(results.map((r) => [r.status, r.code, r.error])).toEqual([
      ["created", null, null],
      ["updated", null, null],
      ["error", "validation_error", "email must be a valid email address"],
      ["error", "validation_error", "first_name and last_name are required"],
      ["error", "conflict", `A contact with this email already exists: ${held.contact_uuid}`],
      ["error", "conflict", `A contact with this phone already exists: ${held.contact_uuid}`],
      ["error", "conflict", `A contact with this external_id already exists: ${held.contact_uuid}`],
      ["error", "validation_error", "Unknown path_uuid"],
      ["error", "validation_error", "custom_fields.colour is not a field of this agency"],
      ["error", "validation_error", "custom_fields.budget must be a number"],
      ["error", "validation_error", "match_on is phone, but the contact has no phone"],
      ["error", "validation_error", "match_on must be one of: external_id, email, phone"],
      ["error", "validation_error", "Unknown field: nickname"],
      ["error", "validation_error", "Invalid input: expected object, received string"],
    ]);
    expect(results[1]!.contact_uuid).toBe(existing.contact_uuid);
    const updated = await api("GET", `/contacts/${existing.contact_uuid}`, { token: agency.token });
    expect(updated.body.contact).toMatchObject({ first_name: "Renamed", last_name: "Name", external_id: "crm-existing", custom_fields: { budget: 7 } });
    const made = await api("GET", `/contacts/${results[0]!.contact_uuid}`, { token: agency.token });
    expect(made.body.contact).toMatchObject({ email: "new@example.com", path_uuid: path.path_uuid, custom_fields: { budget: 5 }, external_id: null });
    // Four contacts live: the two before, the one created; nothing of the bad items.
    expect(await liveContacts(agency)).toHaveLength(3);
    expect(await eventCount(agency, "contact.created")).toBe(3);
    expect(await eventCount(agency, "contact.updated")).toBe(1);
    const lead = await (await dbOf(agency.agencyUuid))
      .prepare("SELECT count(*) AS n FROM path_events WHERE agency_id = ? AND type = 'lead' AND contact_id = ?")
      .bind(agency.agencyUuid, results[0]!.contact_uuid)
      .first<{ n: number }>();
    expect(lead!.n).toBe(1);
  });

  it("applies items in order: a later item updates the contact an earlier one created, and a clash with it names it", async () => {
    const agency = await setupAgency();
    const results = await bulkOk(agency, [
      { first_name: "Ada", last_name: "Lovelace", external_id: "crm-1", email: "ada@example.com" },
      { first_name: "Ada", last_name: "King", external_id: "crm-1" },
      { first_name: "Other", last_name: "Ada", external_id: "crm-2", email: "ada@example.com", match_on: "external_id" },
      { first_name: "Ada", last_name: "King", external_id: "crm-1" },
      { first_name: "Moved", last_name: "Email", external_id: "crm-1", email: "ada.king@example.com" },
      { first_name: "Takes", last_name: "Old", external_id: "crm-3", email: "ada@example.com" },
    ]);
    const ada = results[0]!.contact_uuid;
    expect(results.map((r) => [r.status, r.contact_uuid ?? r.error])).toEqual([
      ["created", ada],
      ["updated", ada],
      ["error", `A contact with this email already exists: ${ada}`],
      ["unchanged", ada],
      ["updated", ada],
      ["created", results[5]!.contact_uuid],
    ]);
    const rows = await liveContacts(agency);
    expect(rows.map((r) => [r.external_id, r.last_name, r.email])).toEqual([
      ["crm-1", "Email", "ada.king@example.com"],
      ["crm-3", "Old", "ada@example.com"],
    ]);
    expect(await eventCount(agency, "contact.updated")).toBe(2);
  });

  it("matches on each key: external_id, email and phone, and by default on the first of them the item has", async () => {
    const agency = await setupAgency();
    const a = await createContact(agency.token, { external_id: "crm-a", email: "a@example.com", phone: "+14155551001" });
    const b = await createContact(agency.token, { email: "b@example.com", phone: "+14155551002" });
    const c = await createContact(agency.token, { phone: "+14155551003" });
    const results = await bulkOk(agency, [
      { first_name: "By", last_name: "External", external_id: "crm-a" },
      { first_name: "By", last_name: "Email", email: "B@example.com", external_id: "crm-b", match_on: "email" },
      { first_name: "By", last_name: "Phone", phone: "415-555-1003", match_on: "phone" },
      // Default: external_id first; crm-new matches nobody, so it is created, and its email clashes.
      { first_name: "Default", last_name: "External", external_id: "crm-new", email: "a@example.com" },
      // Default without an external_id: the email.
      { first_name: "Default", last_name: "Email", email: "a@example.com" },
    ]);
    expect(results.map((r) => [r.status, r.contact_uuid ?? r.error])).toEqual([
      ["updated", a.contact_uuid],
      ["updated", b.contact_uuid],
      ["updated", c.contact_uuid],
      ["error", `A contact with this email already exists: ${a.contact_uuid}`],
      ["updated", a.contact_uuid],
    ]);
    const found = await api("GET", "/contacts?external_id=crm-b", { token: agency.token });
    expect(found.body.contacts.map((x: { contact_uuid: string }) => x.contact_uuid)).toEqual([b.contact_uuid]);
    expect((await api("GET", `/contacts/${a.contact_uuid}`, { token: agency.token })).body.contact).toMatchObject({
      first_name: "Default",
      last_name: "Email",
      external_id: "crm-a",
    });
  });

  it("replays an idempotent retry without writing twice", async () => {
    const agency = await setupAgency();
    const items = hundred().slice(0, 10);
    const headers = { "Idempotency-Key": "bulk-sync-1" };
    const first = await bulk(agency, items, headers);
    const second = await bulk(agency, items, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.body.results.every((r: { status: string }) => r.status === "created")).toBe(true);
    expect(await liveContacts(agency)).toHaveLength(10);
    expect(await eventCount(agency, "contact.created")).toBe(10);
    const changed = await bulk(agency, items.slice(0, 9), headers);
    expectError(changed, 400, undefined, "idempotency_key_mismatch");
  });

  it("refuses a request of 101 items, none, or not a list, whole", async () => {
    const agency = await setupAgency();
    const items = [...hundred(), { first_name: "One", last_name: "Too many" }];
    const res = await bulk(agency, items);
    expectError(res, 400, BULK_SIZE, "validation_error");
    expectError(await bulk(agency, []), 400, BULK_SIZE, "validation_error");
    expectError(await api("POST", "/contacts/bulk", { token: agency.token, body: { contacts: {} } }), 400, undefined, "validation_error");
    expectError(await api("POST", "/contacts/bulk", { token: agency.token, body: [{ first_name: "A" }] }), 400, undefined, "validation_error");
    expectError(await api("POST", "/contacts/bulk", { token: agency.token, body: { contacts: [], extra: 1 } }), 400, undefined, "validation_error");
    expect(await liveContacts(agency)).toHaveLength(0);
  });

  it("writes only what the request's own agency has: another agency's contacts are not matched", async () => {
    const mine = await setupAgency();
    const theirs = await setupAgency();
    const other = await createContact(theirs.token, { email: "shared@example.com", external_id: "crm-shared" });
    const [result] = await bulkOk(mine, [{ first_name: "Mine", last_name: "Own", email: "shared@example.com", external_id: "crm-shared" }]);
    expect(result!.status).toBe("created");
    expect(result!.contact_uuid).not.toBe(other.contact_uuid);
    expect((await api("GET", `/contacts/${other.contact_uuid}`, { token: theirs.token })).body.contact.first_name).toBe(other.first_name);
  });

  it("sends each item once when many requests race on the same external ids: one contact per id", async () => {
    const agency = await setupAgency();
    const items = hundred().slice(0, 20);
    const responses = await Promise.all(Array.from({ length: 4 }, () => bulk(agency, items)));
    for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await liveContacts(agency);
    expect(rows.map((r) => r.external_id)).toEqual(items.map((i) => i.external_id));
    const created = responses.flatMap((res) => res.body.results.filter((r: { status: string }) => r.status === "created"));
    expect(created).toHaveLength(20);
    expect(await eventCount(agency, "contact.created")).toBe(20);
    for (const res of responses) {
      for (const r of res.body.results) expect(["created", "unchanged"], JSON.stringify(r)).toContain(r.status);
    }
  });
});

describe("external_id on contacts", () => {
  it("is set on create and update, filtered on, unique among live contacts with a 409 naming the holder, and free again once deleted", async () => {
    const agency = await setupAgency();
    const first = await createContact(agency.token, { external_id: "  crm-77  " });
    expect(first.external_id).toBe("crm-77");
    const clash = await api("POST", "/contacts", { token: agency.token, body: { first_name: "Two", last_name: "Copy", external_id: "crm-77" } });
    expectError(clash, 409, `A contact with this external_id already exists: ${first.contact_uuid}`, "conflict");
    const second = await createContact(agency.token, {});
    const patchClash = await api("PATCH", `/contacts/${second.contact_uuid}`, { token: agency.token, body: { external_id: "crm-77" } });
    expectError(patchClash, 409, `A contact with this external_id already exists: ${first.contact_uuid}`, "conflict");
    const found = await api("GET", "/contacts?external_id=crm-77", { token: agency.token });
    expect(found.body.contacts.map((c: { contact_uuid: string }) => c.contact_uuid)).toEqual([first.contact_uuid]);
    expect(found.body.pagination.total).toBe(1);
    expectError(await api("POST", "/contacts", { token: agency.token, body: { first_name: "A", last_name: "B", external_id: "x".repeat(256) } }), 400, "external_id must be 1 to 255 characters");
    expectError(await api("GET", `/contacts?external_id=${"x".repeat(256)}`, { token: agency.token }), 400, "external_id must be 1 to 255 characters");
    const cleared = await api("PATCH", `/contacts/${first.contact_uuid}`, { token: agency.token, body: { external_id: null } });
    expect(cleared.body.contact.external_id).toBeNull();
    const moved = await api("PATCH", `/contacts/${second.contact_uuid}`, { token: agency.token, body: { external_id: "crm-77" } });
    expect(moved.body.contact.external_id).toBe("crm-77");
    expect((await api("DELETE", `/contacts/${second.contact_uuid}`, { token: agency.token })).status).toBe(200);
    const reused = await createContact(agency.token, { external_id: "crm-77" });
    expect(reused.external_id).toBe("crm-77");
    const restore = await api("POST", `/contacts/${second.contact_uuid}/restore`, { token: agency.token });
    expectError(restore, 409, `A contact with this external_id already exists: ${reused.contact_uuid}`, "conflict");
  });
});

/** A bulk upsert with the benchmark's metrics on (src/db/rows-read.ts): its answer, D1 round trips and rows read. */
async function measuredBulk(agency: TestAgency, contacts: unknown[], bindings: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}/api/v2/contacts/bulk`, {
      method: "POST",
      headers: { Authorization: `Bearer ${agency.token}`, "Content-Type": "application/json", "X-Bench-Rows-Read": "1" },
      body: JSON.stringify({ contacts }),
    }),
    { ...env, BENCH_METRICS: "on", ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { results: { index: number; status: string; contact_uuid: string | null; error: string | null; code: string | null }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { body, trips: Number(res.headers.get("X-Bench-D1-Round-Trips")), rowsRead: Number(res.headers.get("X-Bench-Rows-Read")) };
}

/** Whether a batch is a bulk upsert's read of the contacts its items meet (the SQL D1 was given). */
const readsMatches = (statements: D1PreparedStatement[]) =>
  statements.some((s) => /json_each\(.*cross join "contacts"/is.test((s as unknown as { statement?: string }).statement ?? ""));

/**
 * The shard bindings, with `between` run once after the first bulk read of matches answered and
 * before the request goes on: another writer taking values in the moment between the bulk's read
 * and its write, which is when the unique indexes refuse its batch.
 */
function shardsWithWriterBetween(between: () => Promise<void>) {
  let pending = true;
  const forward = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const wrap = (d1: D1Database) =>
    new Proxy(d1, {
      get(target, prop) {
        if (prop !== "withSession") return forward(target, prop);
        return (start?: D1SessionConstraint | D1SessionBookmark) =>
          new Proxy(target.withSession(start), {
            get(session, name) {
              if (name !== "batch") return forward(session, name);
              return async (statements: D1PreparedStatement[]) => {
                const results = await session.batch(statements);
                if (pending && readsMatches(statements)) {
                  pending = false;
                  await between();
                }
                return results;
              };
            },
          });
      },
    });
  return Object.fromEntries(TEST_SHARDS.map(({ name }) => [name, wrap(shardDb(name))]));
}

describe("POST /contacts/bulk and webhooks", () => {
  it("publishes a delivery for each created and updated contact to a subscribed endpoint, and nothing without one", async () => {
    const agency = await setupAgency();
    const items = hundred().slice(0, 3);
    const quiet = webhookEnv();
    const first = await apiWithEnv(quiet.env, "POST", "/contacts/bulk", agency.token, { contacts: items });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(quiet.sent).toEqual([]);

    const { endpoint } = await createEndpoint(agency.token, { events: ["contact.created", "contact.updated"] });
    const subscribed = webhookEnv();
    const second = await apiWithEnv(subscribed.env, "POST", "/contacts/bulk", agency.token, {
      contacts: [...hundred().slice(3, 5), { ...items[0], last_name: "Renamed" }],
    });
    expect(second.body.results.map((r: { status: string }) => r.status)).toEqual(["created", "created", "updated"]);
    const events = (await api("GET", "/events?limit=10", { token: agency.token })).body.events as { event_uuid: string; type: string; data: { object: { contact_uuid: string } } }[];
    const created = new Set([second.body.results[0].contact_uuid, second.body.results[1].contact_uuid]);
    const expected = events
      .filter((e) => e.type === "contact.updated" || (e.type === "contact.created" && created.has(e.data.object.contact_uuid)))
      .map((e) => `${e.event_uuid}:${endpoint.webhook_endpoint_uuid}`);
    expect(expected).toHaveLength(3);
    // Each event holds the contact as the batch left it: the record a GET answers.
    for (const uuid of created) {
      const event = events.find((e) => e.type === "contact.created" && e.data.object.contact_uuid === uuid)!;
      expect(event.data.object).toEqual((await api("GET", `/contacts/${uuid}`, { token: agency.token })).body.contact);
    }
    expect(subscribed.sent.map((m) => m.body.delivery_id).sort()).toEqual(expected.sort());
  });
});

describe("POST /contacts/bulk after a clash", () => {
  it("decides the whole request again against what the other writer left, in two round trips more, each item exact", async () => {
    const agency = await setupAgency();
    let taken: { email: string; external: string } | undefined;
    const shards = shardsWithWriterBetween(async () => {
      // Between the bulk's read and its write: one contact takes crm-b's email, another takes crm-c.
      const email = await createContact(agency.token, { first_name: "Other", last_name: "Person", email: "b@example.com" });
      const external = await createContact(agency.token, { first_name: "Cee", last_name: "Writer", external_id: "crm-c" });
      taken = { email: email.contact_uuid, external: external.contact_uuid };
    });
    const { body, trips } = await measuredBulk(
      agency,
      [
        { first_name: "Ada", last_name: "Bulk", external_id: "crm-a", email: "a@example.com", tags: ["synced"] },
        { first_name: "Bea", last_name: "Bulk", external_id: "crm-b", email: "b@example.com" },
        { first_name: "Cee", last_name: "Bulk", external_id: "crm-c", email: "c@example.com" },
      ],
      shards,
    );
    expect(taken).toBeDefined();
    const ada = body.results[0]!.contact_uuid;
    expect(body.results.map((r) => [r.status, r.contact_uuid ?? r.error, r.code])).toEqual([
      ["created", ada, null],
      ["error", `A contact with this email already exists: ${taken!.email}`, "conflict"],
      ["updated", taken!.external, null],
    ]);
    // Read, the refused write; then one read and one write for the whole request.
    expect(trips).toBe(4);
    const rows = await liveContacts(agency);
    expect(rows.map((r) => [r.external_id, r.last_name, r.email])).toEqual([
      [null, "Person", "b@example.com"],
      ["crm-a", "Bulk", "a@example.com"],
      ["crm-c", "Bulk", "c@example.com"],
    ]);
    expect(await eventCount(agency, "contact.created")).toBe(3);
    expect(await eventCount(agency, "contact.updated")).toBe(1);
    const tagged = await api("GET", "/contacts?tag=synced", { token: agency.token });
    expect(tagged.body.contacts.map((c: { contact_uuid: string }) => c.contact_uuid)).toEqual([ada]);
  });

  it("gives overlapping requests fired at once the one right outcome: each contact created once, the others unchanged", async () => {
    const agency = await setupAgency();
    const shared = hundred().slice(0, 10);
    const own = (k: number) => hundred().slice(10 + k * 10, 20 + k * 10);
    const requests = [0, 1, 2].map((k) => [...shared, ...own(k)]);
    const answers = await Promise.all(requests.map((items) => measuredBulk(agency, items)));
    for (let i = 0; i < shared.length; i++) {
      const results = answers.map((a) => a.body.results[i]!);
      expect(results.filter((r) => r.status === "created"), JSON.stringify(results)).toHaveLength(1);
      expect(results.filter((r) => r.status === "unchanged")).toHaveLength(2);
      expect(new Set(results.map((r) => r.contact_uuid)).size).toBe(1);
    }
    for (const a of answers) expect(a.body.results.slice(10).every((r) => r.status === "created")).toBe(true);
    // Two round trips, and two more for each clash: at most one per other request, whose write is what took the values.
    for (const a of answers) expect([2, 4, 6]).toContain(a.trips);
    const rows = await liveContacts(agency);
    expect(rows.map((r) => r.external_id)).toEqual([...shared, ...own(0), ...own(1), ...own(2)].map((i) => i.external_id).sort());
    expect(await eventCount(agency, "contact.created")).toBe(40);
  });

  it("reads at most 10 rows per new contact of a CRM sync (email, external_id, a tag), however many contacts the agency has", async () => {
    const agency = await setupAgency();
    await bulkOk(agency, hundred());
    await bulkOk(
      agency,
      hundred().map((item, i) => ({ ...item, email: `old${i}@example.com`, phone: null, external_id: `crm-old-${i}` })),
    );
    const items = hundred().map((_, i) => ({ first_name: "New", last_name: `No ${i}`, email: `new${i}@example.com`, external_id: `crm-new-${i}`, tags: ["synced"] }));
    const { body, rowsRead, trips } = await measuredBulk(agency, items);
    expect(body.results.every((r) => r.status === "created")).toBe(true);
    expect(trips).toBe(2);
    expect(rowsRead / items.length).toBeLessThanOrEqual(10);
  });
});

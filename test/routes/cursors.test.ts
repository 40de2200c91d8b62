import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sealCursor } from "@/lib/cursor";
import { sha256Hex } from "@/lib/crypto";
import { cursorMessages, MAX_PAGE } from "@/lib/pagination";
import { api, expectError } from "../helpers/http";
import { measuredGet } from "../helpers/rows-read";
import { operationsOf, type Json } from "../helpers/openapi-doc";
import { createKey, createMember, setupAgency, type TestAgency } from "../helpers/factories";
import { book, createWidget, freeStarts, nextWeekday, openBusinessHours } from "../helpers/calendar-factories";
import { createLeadOrder } from "../helpers/lead-order-factories";
import { CONTENT_STEP, createContact, createPath, publishPath } from "../helpers/path-factories";
import { callerId, createCall, createVoiceAgent, creditWallet } from "../helpers/voice-factories";
import { dbOf } from "../helpers/shards";

/** Records of every list made in the agency: enough for a first, a middle and a last page of 2. */
const RECORDS = 3;

interface ListCase {
  /** The list's URL (path parameters filled in). */
  url: string;
  /** The array of records in its response. */
  key: string;
  /** A filter that keeps every record, so its cursors are another filter's. */
  filter?: string;
}

let agency: TestAgency;
let other: TestAgency;
let lists: Record<string, ListCase>;

/** `count` published versions of a path: each publish follows a change of the draft. */
async function publishVersions(token: string, pathUuid: string, count: number) {
  for (let i = 0; i < count; i++) {
    const changed = await api("PATCH", `/paths/${pathUuid}`, { token, body: { name: `Funnel v${i + 1}` } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await publishPath(token, pathUuid);
  }
}

async function seed(): Promise<Record<string, ListCase>> {
  const { token, agencyUuid } = agency;
  const contacts = [];
  for (let i = 0; i < RECORDS; i++) contacts.push(await createContact(token, { tags: ["cursor"] }));
  await openBusinessHours(token);
  const slots = await freeStarts(token, nextWeekday(3));
  for (const slot of slots.slice(0, RECORDS)) await book(token, slot);
  await creditWallet(agencyUuid);
  for (let i = 0; i < RECORDS; i++) await createVoiceAgent(agencyUuid, { name: `Agent ${i}`, phone_numbers: [callerId()] });
  const calls = [];
  for (let i = 0; i < RECORDS; i++) calls.push(await createCall(token, { phone: `+1415555${String(7000 + i)}`, delay_seconds: 3600 }));
  // Due in an hour: `queued` inside the agency's calling hours, `scheduled` (held for them) outside,
  // so the filter is the status the calls got at this time of day.
  const callStatus = calls[0]!.status as string;
  expect(calls.every((call) => call.status === callStatus)).toBe(true);
  for (let i = 0; i < RECORDS; i++) {
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contacts[0]!.contact_uuid, channel: "note", body: `Note ${i}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  const paths = [];
  for (let i = 0; i < RECORDS; i++) paths.push(await createPath(token, { name: `Funnel ${i}`, steps: [CONTENT_STEP] }));
  await publishVersions(token, paths[0]!.path_uuid, RECORDS);
  for (let i = 0; i < RECORDS; i++) {
    const res = await api("POST", "/fields", { token, body: { key: `field_${i}`, label: `Field ${i}`, type: "text" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  for (let i = 0; i < RECORDS; i++) await createLeadOrder(agencyUuid, { name: `Order ${i}` });
  for (let i = 0; i < RECORDS; i++) await createMember(agencyUuid, { role: "agent" });
  for (let i = 0; i < RECORDS; i++) {
    const res = await api("POST", "/users/invites", { token, body: { email: `invitee${i}@example.com`, role: "agent" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  for (let i = 0; i < RECORDS; i++) await createWidget(agencyUuid, { name: `Widget ${i}` });
  const endpoints: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const res = await api("POST", "/webhook-endpoints", { token, body: { url: `https://hooks.example.com/cursor-${i}`, events: ["*"] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    endpoints.push(res.body.webhook_endpoint.webhook_endpoint_uuid as string);
    // Disabled: no delivery may change the lists while the tests read them.
    const off = await api("PATCH", `/webhook-endpoints/${endpoints[i]}`, { token, body: { status: "disabled" } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
  }
  // Attempts are written only by deliveries; three of them, one millisecond apart, two sharing one.
  const db = await dbOf(agencyUuid);
  const at = ["2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00.001Z"];
  await db.batch(
    at.map((attemptedAt) =>
      db
        .prepare(
          "INSERT INTO webhook_attempts (id, agency_id, endpoint_id, delivery_id, event_id, event_type, attempt, status_code, error, duration_ms, delivered, attempted_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, 'contact.created', 1, 200, NULL, 12, 1, ?, NULL)",
        )
        .bind(crypto.randomUUID(), agencyUuid, endpoints[0], crypto.randomUUID(), crypto.randomUUID(), attemptedAt),
    ),
  );
  return {
    "/contacts": { url: "/contacts", key: "contacts", filter: "tag=cursor" },
    "/appointments": { url: "/appointments", key: "appointments", filter: "status=booked" },
    "/voice-ai/calls": { url: "/voice-ai/calls", key: "calls", filter: `status=${callStatus}` },
    "/voice-ai/agents": { url: "/voice-ai/agents", key: "agents" },
    "/messages": { url: "/messages", key: "messages", filter: "channel=note" },
    "/paths": { url: "/paths", key: "paths", filter: "status=draft" },
    "/paths/{path_uuid}/versions": { url: `/paths/${paths[0]!.path_uuid}/versions`, key: "versions" },
    "/fields": { url: "/fields", key: "fields", filter: "include_archived=true" },
    "/lead-orders": { url: "/lead-orders", key: "lead_orders", filter: "status=active" },
    "/users": { url: "/users", key: "members", filter: "role=agent" },
    "/users/invites": { url: "/users/invites", key: "invites" },
    "/booking-widgets": { url: "/booking-widgets", key: "booking_widgets" },
    "/events": { url: "/events", key: "events", filter: "type=contact.created" },
    "/webhook-endpoints": { url: "/webhook-endpoints", key: "webhook_endpoints" },
    "/webhook-endpoints/{webhook_endpoint_uuid}/deliveries": {
      url: `/webhook-endpoints/${endpoints[0]}/deliveries`,
      key: "deliveries",
    },
  };
}

const withQuery = (url: string, query: string) => `${url}${url.includes("?") ? "&" : "?"}${query}`;

async function get(url: string, token = agency.token) {
  const res = await api("GET", url, { token });
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** Every page of a list by cursor, `limit` at a time. */
async function walk(url: string, key: string, limit: number) {
  const pages: { records: unknown[]; pagination: Record<string, unknown> }[] = [];
  let cursor: string | null = null;
  do {
    const body: Json = await get(withQuery(url, cursor ? `limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `limit=${limit}`));
    pages.push({ records: body[key], pagination: body.pagination });
    cursor = body.pagination.next_cursor;
    expect(pages.length, `${url} never ends`).toBeLessThan(1000);
  } while (cursor);
  return pages;
}

/** The first page's next cursor of a list. */
const firstCursor = async (url: string, token = agency.token) => (await get(withQuery(url, "limit=1"), token)).pagination.next_cursor as string;

/** A cursor with one character of its payload changed. */
const edited = (cursor: string) => `${cursor[0] === "W" ? "X" : "W"}${cursor.slice(1)}`;

beforeAll(async () => {
  agency = await setupAgency("Cursor agency");
  other = await setupAgency("Other cursor agency");
  lists = await seed();
}, 120_000);

describe("cursor pagination on every list", () => {
  it("is offered by every list of the document, and only by lists", async () => {
    const doc = (await api("GET", "/openapi.json")).body as Json;
    const withCursor = operationsOf(doc)
      .filter(({ op }) => (op.parameters ?? []).some((p: Json) => p.in === "query" && p.name === "cursor"))
      .map(({ method, path }) => `${method} ${path}`);
    expect(withCursor.sort()).toEqual(Object.keys(lists).map((path) => `GET ${path}`).sort());
    for (const { op } of operationsOf(doc).filter(({ op }) => (op.parameters ?? []).some((p: Json) => p.name === "cursor"))) {
      expect(op.description).toContain("`pagination.next_cursor` as `cursor`");
      expect(op.responses["200"].content["application/json"].schema.$ref ?? "").not.toBe("");
    }
  });

  it.each(Object.keys(new Array(15).fill(0)).map(Number))("list %i: first, next and last page, and the walk equals the list", async (index) => {
    const [name, list] = Object.entries(lists)[index]!;
    const full: Json = await get(withQuery(list.url, "limit=100"));
    const all = full[list.key] as unknown[];
    expect(all.length, name).toBeGreaterThanOrEqual(RECORDS);
    expect(full.pagination).toEqual({ page: 1, limit: 100, total: all.length, next_cursor: null });

    const pages = await walk(list.url, list.key, 2);
    expect(pages.length, name).toBe(Math.ceil(all.length / 2));
    pages.forEach((page, i) => {
      expect(page.pagination.page, name).toBe(i + 1);
      expect(page.pagination.total, name).toBe(all.length);
      expect(page.pagination.limit, name).toBe(2);
      expect(page.pagination.next_cursor === null, name).toBe(i === pages.length - 1);
    });
    expect(pages.flatMap((page) => page.records), name).toEqual(all);

    // Page mode gives the cursor of the page after it too.
    const second: Json = await get(withQuery(list.url, "page=2&limit=1"));
    const third: Json = await get(withQuery(list.url, `limit=1&cursor=${encodeURIComponent(second.pagination.next_cursor)}`));
    expect(third[list.key], name).toEqual([all[2]]);
    expect(third.pagination.page, name).toBe(3);
  });

  it.each(Object.keys(new Array(15).fill(0)).map(Number))("list %i refuses a cursor of another list, other filters, another agency or edited, and a cursor with page", async (index) => {
    const [name, list] = Object.entries(lists)[index]!;
    const [otherName, otherList] = Object.entries(lists)[(index + 1) % 15]!;
    const cursor = await firstCursor(list.url);
    expect(cursor, name).toEqual(expect.any(String));
    const refused = async (url: string, why: string) => {
      const res = await api("GET", url, { token: agency.token });
      expect(res.status, `${name}: ${why}`).toBe(400);
      expectError(res, 400, cursorMessages.invalid, "invalid_cursor");
      expect(res.body.details, `${name}: ${why}`).toEqual([{ field: "cursor", message: cursorMessages.invalid }]);
    };
    await refused(withQuery(list.url, `cursor=${encodeURIComponent(await firstCursor(otherList.url))}`), `cursor of ${otherName}`);
    if (list.filter) {
      await refused(withQuery(list.url, `${list.filter}&cursor=${encodeURIComponent(cursor)}`), "other filters");
      const filtered = await firstCursor(withQuery(list.url, list.filter));
      await refused(withQuery(list.url, `cursor=${encodeURIComponent(filtered)}`), "filtered cursor without its filter");
      // The same filters take it, in any order with the paging parameters.
      await get(withQuery(list.url, `cursor=${encodeURIComponent(filtered)}&${list.filter}`));
    }
    await refused(withQuery(list.url, `cursor=${encodeURIComponent(edited(cursor))}`), "edited");
    await refused(withQuery(list.url, `cursor=${encodeURIComponent(`${cursor.slice(0, -1)}${cursor.endsWith("0") ? "1" : "0"}`)}`), "edited MAC");
    await refused(withQuery(list.url, "cursor=not-a-cursor"), "garbage");
    const both = await api("GET", withQuery(list.url, `page=2&cursor=${encodeURIComponent(cursor)}`), { token: agency.token });
    expectError(both, 400, cursorMessages.withPage, "validation_error");
    const tooLong = await api("GET", withQuery(list.url, `cursor=${"a".repeat(1001)}`), { token: agency.token });
    expectError(tooLong, 400, undefined, "validation_error");
  });
});

describe("cursors of another agency", () => {
  it("are refused on the same list, and a path's versions refuse the cursor of another path's", async () => {
    for (let i = 0; i < 2; i++) await createContact(other.token);
    for (const url of ["/contacts", "/events"]) {
      const res = await api("GET", `${url}?cursor=${encodeURIComponent(await firstCursor(url, other.token))}`, { token: agency.token });
      expectError(res, 400, cursorMessages.invalid, "invalid_cursor");
      // The other agency's own cursor still works for it.
      await get(`${url}?cursor=${encodeURIComponent(await firstCursor(url, other.token))}`, other.token);
    }
    const path = await createPath(agency.token, { name: "Second funnel", steps: [CONTENT_STEP] });
    await publishVersions(agency.token, path.path_uuid, 2);
    const cursor = await firstCursor(`/paths/${path.path_uuid}/versions`);
    const res = await api("GET", `${lists["/paths/{path_uuid}/versions"]!.url}?cursor=${encodeURIComponent(cursor)}`, { token: agency.token });
    expectError(res, 400, cursorMessages.invalid, "invalid_cursor");
  });
});

describe("cursors sealed with TOKEN_PEPPER", () => {
  /** A cursor's state: [page, total, ...sort keys]. */
  const stateOf = (cursor: string) => JSON.parse(atob(cursor.split(".")[0]!.replaceAll("-", "+").replaceAll("_", "/"))) as [number, number, ...string[]];

  it("refuses a cursor sealed with a plain SHA-256, and walks no further than page 1,000,000, the largest page", async () => {
    const deep = await setupAgency("Deep walk agency");
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createContact(deep.token));
    const cursor = await firstCursor("/contacts", deep.token);
    const [page, total, ...after] = stateOf(cursor);
    expect([page, total]).toEqual([2, 3]);
    // What the cursor is bound to (src/routes/list-pages.ts): resealing the server's own cursor proves it.
    const binding = ["/api/v2/contacts", deep.agencyUuid, "[]", '[["deleted",false]]'].join("\n");
    expect(await sealCursor({ page, total, after }, binding, env.TOKEN_PEPPER!)).toBe(cursor);

    // Sealed the way a deployment without a pepper once did: anyone could compute it, so it is refused.
    const payload = cursor.split(".")[0]!;
    const unkeyed = `${payload}.${(await sha256Hex(`cursor\n${binding}\n${payload}`)).slice(0, 32)}`;
    expectError(await api("GET", `/contacts?limit=1&cursor=${encodeURIComponent(unkeyed)}`, { token: deep.token }), 400, cursorMessages.invalid, "invalid_cursor");

    // Page 1,000,000 answers its record, and no cursor leads past it although a record follows.
    const last = await sealCursor({ page: MAX_PAGE, total, after }, binding, env.TOKEN_PEPPER!);
    const atMax = await get(`/contacts?limit=1&cursor=${encodeURIComponent(last)}`, deep.token);
    expect(atMax.contacts.map((c: { contact_uuid: string }) => c.contact_uuid)).toEqual([made[1]!.contact_uuid]);
    expect(atMax.pagination).toEqual({ page: MAX_PAGE, limit: 1, total: 3, next_cursor: null });
    // A cursor naming a later page, well sealed as it may be, is the documented 400.
    const beyond = await sealCursor({ page: MAX_PAGE + 1, total, after }, binding, env.TOKEN_PEPPER!);
    expectError(await api("GET", `/contacts?limit=1&cursor=${encodeURIComponent(beyond)}`, { token: deep.token }), 400, cursorMessages.invalid, "invalid_cursor");
  });
});

describe("a cursor walk while the list changes", () => {
  it("returns each of 250 contacts exactly once and in order, while others are created and deleted", async () => {
    const walker = await setupAgency("Walk agency");
    // Deletes are limited to 10 a minute: this walk deletes more, with a key allowed as many.
    walker.token = (await createKey(walker.agencyUuid, { scopes: ["*"], rate_limit_multiplier: 10 })).token;
    const db = await dbOf(walker.agencyUuid);
    // 250 contacts in ties of three: the id alone orders contacts created in the same millisecond.
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    const statements = Array.from({ length: 250 }, (_, i) =>
      db
        .prepare("INSERT INTO contacts (id, agency_id, first_name, last_name, tags, custom_fields, created_at, updated_at) VALUES (?, ?, 'Walk', ?, '[]', '{}', ?, ?)")
        .bind(crypto.randomUUID(), walker.agencyUuid, `No ${i}`, new Date(base + Math.floor(i / 3)).toISOString(), new Date(base).toISOString()),
    );
    await db.batch(statements);
    const before: Json = await get("/contacts?limit=100&page=1", walker.token);
    const original: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const body: Json = await get(`/contacts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, walker.token);
      original.push(...body.contacts.map((c: Json) => c.contact_uuid));
      cursor = body.pagination.next_cursor;
    }
    expect(original).toHaveLength(250);
    expect(before.pagination.total).toBe(250);

    const seen: string[] = [];
    const created: string[] = [];
    const deleted = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: Json = await get(`/contacts?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, walker.token);
      seen.push(...body.contacts.map((c: Json) => c.contact_uuid));
      expect(body.pagination.total).toBe(250);
      cursor = body.pagination.next_cursor;
      pages++;
      // Between pages: a new contact (at the head), and one not yet walked deleted.
      const [made, gone] = await Promise.all([
        api("POST", "/contacts", { token: walker.token, body: { first_name: "New", last_name: `During ${pages}` } }),
        (async () => {
          const victim = original[original.length - pages * 2];
          if (!victim || seen.includes(victim)) return undefined;
          deleted.add(victim);
          return api("DELETE", `/contacts/${victim}`, { token: walker.token });
        })(),
      ]);
      expect(made.status).toBe(201);
      created.push(made.body.contact.contact_uuid);
      if (gone) expect(gone.status).toBe(200);
    } while (cursor);

    expect(new Set(seen).size, "a contact came twice").toBe(seen.length);
    expect(seen.filter((id) => created.includes(id)), "a contact created during the walk").toEqual([]);
    expect(seen).toEqual(original.filter((id) => !deleted.has(id)));
    expect(deleted.size).toBeGreaterThan(10);
  }, 120_000);
});

describe("rows read by depth", () => {
  it("a cursor page at depth 10,000 reads what the first page reads; the same page by number reads every row it skips", async () => {
    const deep = await setupAgency("Deep agency");
    const db = await dbOf(deep.agencyUuid);
    const total = 10_040;
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    const rows = Array.from({ length: total }, (_, i) => [crypto.randomUUID(), new Date(base + i).toISOString()] as const);
    for (let i = 0; i < rows.length; i += 500) {
      await db.batch(
        rows.slice(i, i + 500).map(([id, at]) =>
          db
            .prepare("INSERT INTO contacts (id, agency_id, first_name, last_name, tags, custom_fields, created_at, updated_at) VALUES (?, ?, 'Deep', 'Contact', '[]', '{}', ?, ?)")
            .bind(id, deep.agencyUuid, at, at),
        ),
      );
    }

    const first = await measuredGet(deep.token, "/contacts?limit=20");
    const byPage = await measuredGet(deep.token, "/contacts?limit=20&page=501");
    const byCursor = await measuredGet(deep.token, `/contacts?limit=20&cursor=${encodeURIComponent(byPage.body.pagination.next_cursor)}`);
    expect(byCursor.body.pagination.page).toBe(502);
    expect(byCursor.body.contacts[0].created_at).toBe(rows[total - 1 - 10_020]![1]);
    expect(byCursor.rows).toBeLessThanOrEqual(first.rows);
    // Read in index order: the page, the row that tells a next page exists, and the maintained total.
    expect(first.rows).toBe(22);
    expect(byPage.rows).toBeGreaterThan(10_000);
  }, 120_000);
});

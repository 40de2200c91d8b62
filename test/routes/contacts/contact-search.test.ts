import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listContactsQueries, type ContactFilters } from "@/domain/contacts/contacts.repository";
import { api } from "../../helpers/http";
import { measuredGet } from "../../helpers/rows-read";
import { setupAgency } from "../../helpers/factories";
import { dbOf } from "../../helpers/shards";

async function createContact(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.contact.contact_uuid as string;
}

const patch = async (token: string, uuid: string, body: Record<string, unknown>) =>
  expect((await api("PATCH", `/contacts/${uuid}`, { token, body })).status).toBe(200);

async function search(token: string, query: string) {
  const res = await api("GET", `/contacts?${query}`, { token });
  expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
  return { uuids: res.body.contacts.map((c: any) => c.contact_uuid) as string[], total: res.body.pagination.total as number };
}

/** Expects `q` (with optional extra parameters) to find exactly `expected`, newest first, and to count them. */
async function expectFinds(token: string, q: string, expected: string[], extra = "") {
  const { uuids, total } = await search(token, `q=${encodeURIComponent(q)}${extra}`);
  expect(uuids, `q=${q}${extra}`).toEqual(expected);
  expect(total, `total of q=${q}${extra}`).toBe(expected.length);
}

/** The contacts_fts rows of an agency's contacts, by contact id. */
async function indexRows(agencyUuid: string) {
  const { results } = await (await dbOf(agencyUuid)).prepare(
    `SELECT f.contact_id, f.name, f.email, f.phone FROM contacts_fts f JOIN contacts c ON c.rowid = f.rowid
     WHERE c.agency_id = ? ORDER BY c.rowid`,
  )
    .bind(agencyUuid)
    .all<{ contact_id: string; name: string; email: string | null; phone: string | null }>();
  return results;
}

describe("GET /contacts?q=", () => {
  it("finds contacts by the starts of words of their names and email, in any order", async () => {
    const { token } = await setupAgency();
    const ada = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123" });
    const grace = await createContact(token, { first_name: "Grace", last_name: "Hopper", email: "grace@navy.mil", phone: "+12125550199" });

    await expectFinds(token, "lov", [ada]);
    await expectFinds(token, "gra hop", [grace]);
    await expectFinds(token, "hopper grace", [grace]);
    await expectFinds(token, "GRACE", [grace]);
    await expectFinds(token, "ada@ana", [ada]);
    await expectFinds(token, "analytical.org", [ada]);
    await expectFinds(token, "mil", [grace]);
    await expectFinds(token, "a", [ada]);
    await expectFinds(token, "n", [grace]);
    // Every word must match; a fragment from inside a word is not a word start.
    await expectFinds(token, "ada hopper", []);
    await expectFinds(token, "velace", []);
    await expectFinds(token, "nalytical", []);
  });

  it("finds phone digits anywhere in the number when q looks like a phone number", async () => {
    const { token } = await setupAgency();
    const ada = await createContact(token, { first_name: "Ada", last_name: "Lovelace", phone: "+14155550123" });
    const grace = await createContact(token, { first_name: "Grace", last_name: "Hopper", phone: "+12125550199" });
    const intl = await createContact(token, { first_name: "Alan", last_name: "Turing", phone: "+447911123456" });
    await createContact(token, { first_name: "No", last_name: "Phone" });

    await expectFinds(token, "0123", [ada]);
    await expectFinds(token, "1555", [ada]);
    await expectFinds(token, "555-01", [grace, ada]);
    await expectFinds(token, "(415) 555-0123", [ada]);
    await expectFinds(token, "+1 415 555 0123", [ada]);
    await expectFinds(token, "4155550123", [ada]);
    await expectFinds(token, "14155550123", [ada]);
    await expectFinds(token, "+447911123456", [intl]);
    await expectFinds(token, "7911 123", [intl]);
    await expectFinds(token, "3", [intl, ada]);
    await expectFinds(token, "0124", []);
    await expectFinds(token, "41555501234", []);
    // With a letter q is not a phone number: its digits must then start words of the name or email.
    await expectFinds(token, "ada 0123", []);
  });

  it("ignores case and accents on both sides", async () => {
    const { token } = await setupAgency();
    const jose = await createContact(token, { first_name: "José", last_name: "Núñez", email: "jn@example.com" });
    const renee = await createContact(token, { first_name: "Renee", last_name: "Celik", email: "rc@example.com" });

    await expectFinds(token, "jose", [jose]);
    await expectFinds(token, "JOSE NUNEZ", [jose]);
    await expectFinds(token, "josé", [jose]);
    await expectFinds(token, "José", [jose]);
    await expectFinds(token, "Jose\u0301", [jose]); // é typed as e + combining acute accent
    await expectFinds(token, "nún", [jose]);
    await expectFinds(token, "renée çelik", [renee]);
    await expectFinds(token, "RENÉE", [renee]);
  });

  it("treats full-text query syntax in q as plain words: 200, never an error", async () => {
    const { token } = await setupAgency();
    const ada = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org" });
    const grace = await createContact(token, { first_name: "Grace", last_name: "Hopper", email: "grace@navy.mil" });
    const anders = await createContact(token, { first_name: "Anders", last_name: "Nearing", email: "an@example.com" });

    const cases: [string, string[]][] = [
      ['"', []],
      ['""', []],
      ["*", []],
      ["'", []],
      ["+", []],
      ["()", []],
      ["\u0000", []],
      ["ada*", [ada]],
      ['"ada"', [ada]],
      ['ada"', [ada]],
      ['"ada', [ada]],
      ["(ada", [ada]],
      ["^ada", [ada]],
      ["-ada", [ada]],
      ["ada -grace", []],
      ["ada OR grace", []],
      ["ada AND grace", []],
      ["NOT ada", []],
      ["NEAR(ada)", []],
      ["NEAR(ada grace, 5)", []],
      ["name:ada", []],
      ["{name email}:ada", []],
      ["email : ada", []],
      ["agency", []],
      // Operators are words like any other: AND and NEAR are the starts of Anders Nearing's names.
      ["AND", [anders]],
      ["near", [anders]],
      ["and near", [anders]],
      ["grace*hop", [grace]],
    ];
    for (const [q, expected] of cases) await expectFinds(token, q, expected);
  });

  it("searches no agency's token: the agency id is not a word of the index", async () => {
    const { agencyUuid, token } = await setupAgency();
    await createContact(token, { email: "ada@analytical.org" });
    await expectFinds(token, agencyUuid.replaceAll("-", ""), []);
    await expectFinds(token, agencyUuid.slice(0, 8), []);
  });

  it("reflects renames, email and phone changes at once; the old values stop matching", async () => {
    const { agencyUuid, token } = await setupAgency();
    const uuid = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "countess@analytical.org", phone: "+14155550123" });
    await expectFinds(token, "ada", [uuid]);

    await patch(token, uuid, { first_name: "Augusta" });
    await expectFinds(token, "augusta lovelace", [uuid]);
    await expectFinds(token, "ada", []);

    await patch(token, uuid, { last_name: "King" });
    await expectFinds(token, "augusta king", [uuid]);
    await expectFinds(token, "lovelace", []);

    await patch(token, uuid, { email: "byron@poetry.org" });
    await expectFinds(token, "byron@poetry", [uuid]);
    await expectFinds(token, "countess", []);
    await expectFinds(token, "analytical", []);

    await patch(token, uuid, { phone: "(212) 555-0100" });
    await expectFinds(token, "0100", [uuid]);
    await expectFinds(token, "0123", []);
    await expectFinds(token, "415", []);

    await patch(token, uuid, { phone: null, email: null });
    await expectFinds(token, "0100", []);
    await expectFinds(token, "byron", []);
    await expectFinds(token, "augusta", [uuid]);

    // A change to other fields leaves the index row as it was.
    await patch(token, uuid, { tags: ["vip"], source: "Zillow" });
    await expectFinds(token, "augusta king", [uuid]);
    expect(await indexRows(agencyUuid)).toEqual([{ contact_id: uuid, name: "Augusta King", email: null, phone: null }]);
  });

  it("leaves soft-deleted contacts out of the live search, finds them with deleted=true, and again after restore", async () => {
    const { token } = await setupAgency();
    const kept = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123" });
    const gone = await createContact(token, { first_name: "Ada", last_name: "Byron", email: "ada@byron.org", phone: "+14155550124" });
    expect((await api("DELETE", `/contacts/${gone}`, { token })).status).toBe(200);

    await expectFinds(token, "ada", [kept]);
    await expectFinds(token, "byron", []);
    await expectFinds(token, "ada", [gone], "&deleted=true");
    await expectFinds(token, "0124", [gone], "&deleted=true");
    await expectFinds(token, "lovelace", [], "&deleted=true");

    expect((await api("POST", `/contacts/${gone}/restore`, { token })).status).toBe(200);
    await expectFinds(token, "ada", [gone, kept]);
    await expectFinds(token, "byron", [gone]);
    await expectFinds(token, "ada", [], "&deleted=true");
  });

  it("never lists another agency's contact with the same name, email and phone", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const body = { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123", tags: ["vip"], source: "Zillow" };
    const ofA = await createContact(a.token, body);
    const ofB = await createContact(b.token, body);
    for (const q of ["ada", "ada lovelace", "analytical.org", "0123", "+1 415 555 0123"]) {
      await expectFinds(a.token, q, [ofA]);
      await expectFinds(b.token, q, [ofB]);
      await expectFinds(a.token, q, [ofA], "&tag=vip&source=Zillow");
    }
    expect((await api("DELETE", `/contacts/${ofB}`, { token: b.token })).status).toBe(200);
    await expectFinds(a.token, "ada", [], "&deleted=true");
    await expectFinds(b.token, "ada", [ofB], "&deleted=true");
  });

  it("pages through more matches than one page, newest first, with the total of all matches", async () => {
    const { token } = await setupAgency();
    const matches: string[] = [];
    // 28 creates: under POST /contacts' 30 a minute.
    for (let i = 0; i < 25; i++) {
      matches.push(await createContact(token, { first_name: "Pat", last_name: `Sample${i}`, email: `pat${i}@example.com` }));
      if (i % 10 === 4) await createContact(token, { first_name: "Other", last_name: `Person${i}` });
    }
    const newestFirst = [...matches].reverse();
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await search(token, `q=pat+sam&limit=10&page=${page}`));
    expect(pages.map((p) => p.total)).toEqual([25, 25, 25, 25]);
    expect(pages.map((p) => p.uuids.length)).toEqual([10, 10, 5, 0]);
    expect(pages[2]!.uuids).toEqual(newestFirst.slice(20, 25));
    expect(pages.flatMap((p) => p.uuids)).toEqual(newestFirst);
  });
});

describe("GET /contacts?tag=", () => {
  it("filters by tag alone, with q, with source, and among soft-deleted contacts", async () => {
    const { token } = await setupAgency();
    const lovelace = await createContact(token, { first_name: "Ada", last_name: "Lovelace", tags: ["vip", "buyer"], source: "Zillow" });
    const byron = await createContact(token, { first_name: "Ada", last_name: "Byron", tags: ["vip"], source: "Website" });
    const king = await createContact(token, { first_name: "Ada", last_name: "King", tags: ["buyer"], source: "Zillow" });
    const hopper = await createContact(token, { first_name: "Grace", last_name: "Hopper", tags: ["vip"], source: "Zillow" });

    await expectFinds(token, "", [hopper, byron, lovelace], "&tag=vip");
    await expectFinds(token, "ada", [byron, lovelace], "&tag=vip");
    await expectFinds(token, "ada", [lovelace], "&tag=vip&source=Zillow");
    await expectFinds(token, "", [hopper, lovelace], "&tag=vip&source=Zillow");
    await expectFinds(token, "ada", [king, lovelace], "&tag=buyer");
    await expectFinds(token, "ada", [], "&tag=VIP");

    for (const uuid of [lovelace, hopper]) expect((await api("DELETE", `/contacts/${uuid}`, { token })).status).toBe(200);
    await expectFinds(token, "", [byron], "&tag=vip");
    await expectFinds(token, "", [hopper, lovelace], "&tag=vip&deleted=true");
    await expectFinds(token, "ada", [lovelace], "&tag=vip&deleted=true");
    await expectFinds(token, "ada", [lovelace], "&tag=vip&deleted=true&source=Zillow");
    await expectFinds(token, "ada", [], "&tag=vip&deleted=true&source=Website");
    await expectFinds(token, "", [lovelace], "&tag=buyer&deleted=true");

    // A tag change is seen at once.
    await patch(token, byron, { tags: ["buyer"] });
    await expectFinds(token, "", [], "&tag=vip");
    await expectFinds(token, "", [king, byron], "&tag=buyer");
  });
});

describe("contacts_fts", () => {
  it("holds one row per contact with its current values through create, update, soft delete and restore", async () => {
    const { agencyUuid, token } = await setupAgency();
    const a = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123" });
    const b = await createContact(token, { first_name: "Grace", last_name: "Hopper" });
    const c = await createContact(token, { first_name: "Alan", last_name: "Turing", phone: "+447911123456" });
    await patch(token, b, { email: "grace@navy.mil" });
    expect((await api("DELETE", `/contacts/${c}`, { token })).status).toBe(200);
    expect((await api("POST", `/contacts/${c}/restore`, { token })).status).toBe(200);
    expect((await api("DELETE", `/contacts/${a}`, { token })).status).toBe(200);

    expect(await indexRows(agencyUuid)).toEqual([
      { contact_id: a, name: "Ada Lovelace", email: "ada@analytical.org", phone: "14155550123 4155550123 155550123 55550123 5550123 550123 50123 0123 123 23 3    " },
      { contact_id: b, name: "Grace Hopper", email: "grace@navy.mil", phone: null },
      { contact_id: c, name: "Alan Turing", email: null, phone: "447911123456 47911123456 7911123456 911123456 11123456 1123456 123456 23456 3456 456 56 6   " },
    ]);
  });

  it("drops the index row of a contact deleted from the table", async () => {
    // No route deletes contact rows (DELETE /contacts/{uuid} is a soft delete and agencies are
    // never deleted); the trigger keeps the index exact for any SQL that does.
    const { agencyUuid, token } = await setupAgency();
    const kept = await createContact(token, { first_name: "Ada", last_name: "Lovelace", phone: "+14155550123" });
    const removed = await createContact(token, { first_name: "Ada", last_name: "Byron", phone: "+14155550124" });
    const db = await dbOf(agencyUuid);
    const rowid = (await db.prepare("SELECT rowid FROM contacts WHERE id = ?").bind(removed).first<{ rowid: number }>())!.rowid;
    await db.prepare("DELETE FROM contacts WHERE id = ?").bind(removed).run();

    expect(await db.prepare("SELECT count(*) AS n FROM contacts_fts WHERE rowid = ?").bind(rowid).first("n")).toBe(0);
    expect((await indexRows(agencyUuid)).map((r) => r.contact_id)).toEqual([kept]);
    await expectFinds(token, "ada", [kept]);
    await expectFinds(token, "0124", []);
  });

  it("drives every filtered list and count from an index, never from the agency's contacts", async () => {
    const filters: ContactFilters[] = [
      { q: "ada lov", deleted: false },
      { q: "(415) 555", deleted: true },
      { q: "ada", tag: "vip", source: "Zillow", deleted: false },
      { tag: "vip", deleted: false },
      { tag: "vip", source: "Zillow", deleted: true },
    ];
    const windows = [{ read: 11, offset: 20 }, { read: 11, offset: 0, after: ["2026-11-20T14:05:00.000Z", crypto.randomUUID()] }];
    for (const [filter, window] of filters.flatMap((filter) => windows.map((window) => [filter, window] as const))) {
      const queries = listContactsQueries(crypto.randomUUID(), filter, window)!;
      for (const [name, query] of [["page", queries.page], ["total", queries.total]] as const) {
        if (typeof query === "number") throw new Error("a page without a cursor counts its matches");
        const { sql, params } = query.toSQL();
        const plan = (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail);
        const label = `${name} of ${JSON.stringify(filter)}: ${plan.join(" | ")}`;
        expect(plan[0], label).toMatch(
          filter.q ? /^SCAN contacts_fts VIRTUAL TABLE INDEX \d+:M/ : /^SEARCH contact_tags USING INDEX contact_tags_agency_tag_idx \(agency_id=\? AND tag=\?\)$/,
        );
        expect(plan[1], label).toBe(filter.q ? "SEARCH contacts USING INTEGER PRIMARY KEY (rowid=?)" : "SEARCH contacts USING INDEX sqlite_autoindex_contacts_1 (id=?)");
        // No walk over contacts or over an (agency_id, ...) index of contacts.
        expect(plan.filter((step) => /^SCAN contacts\b(?!_fts)|contacts_agency_/.test(step)), label).toEqual([]);
      }
    }
  });

  it("reads as many rows for a search in an agency of 600 more contacts", async () => {
    const { agencyUuid, token } = await setupAgency();
    await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123", tags: ["vip"] });
    await createContact(token, { first_name: "Grace", last_name: "Hopper", phone: "+12125550199", tags: ["vip"] });
    const queries = ["q=ada", "q=lovelace&deleted=true", "q=0123", "q=(415)%20555", "tag=vip", "q=ada&tag=vip", "q=%25"];
    const measure = async () => Promise.all(queries.map(async (query) => (await measuredGet(token, `/contacts?${query}`)).rows));
    const before = await measure();

    const db = await dbOf(agencyUuid);
    const filler = db.prepare(
      `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
       VALUES (?, ?, 'Filler', 'Contact', ?, ?, '[]', NULL, NULL, '{}', ?, ?, ?)`,
    );
    const at = new Date().toISOString();
    const statements = Array.from({ length: 600 }, (_, i) =>
      filler.bind(crypto.randomUUID(), agencyUuid, `filler${i}@example.com`, `+1303888${5000 + i}`, at, at, i % 2 ? at : null),
    );
    await db.batch(statements);

    const after = await measure();
    queries.forEach((query, i) => expect(after[i], `${query}: ${before[i]} rows read before, ${after[i]} after`).toBe(before[i]));
  });
});

import { describe, expect, it } from "vitest";
import { MAX_LISTED_SOURCES, MAX_LISTED_TAGS, MAX_TAGS } from "@/domain/contacts/contacts.rules";
import { api, expectError } from "../../helpers/http";
import { createPathRecord, setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import { dbOf } from "../../helpers/shards";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const CONTACT_KEYS = [
  "contact_uuid",
  "first_name",
  "last_name",
  "email",
  "phone",
  "tags",
  "source",
  "path_uuid",
  "custom_fields",
  "external_id",
  "sms_opt_out",
  "created_at",
  "updated_at",
  "deleted_at",
].sort();
const PHONE_MESSAGE = "phone must be a 10-digit US number or E.164 (e.g. +14155550123)";

/** A distinct, valid US number per index: +1 415 555 0000 + i. */
const phoneAt = (i: number) => `+1415555${String(i).padStart(4, "0")}`;

async function createContact(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.contact as Record<string, any>;
}

async function createField(token: string, body: Record<string, unknown>) {
  const res = await api("POST", "/fields", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.field as Record<string, any>;
}

/** One live field of every type. */
async function createEveryField(token: string) {
  await createField(token, { key: "notes", label: "Notes", type: "text" });
  await createField(token, { key: "budget", label: "Budget", type: "number" });
  await createField(token, { key: "move_date", label: "Move date", type: "date" });
  await createField(token, { key: "pre_approved", label: "Pre-approved", type: "boolean" });
  await createField(token, { key: "lead_stage", label: "Lead stage", type: "select", options: ["new", "qualified", "won"] });
  await createField(token, { key: "interests", label: "Interests", type: "multiselect", options: ["buy", "sell", "rent"] });
}

const getContact = (token: string, uuid: string) => api("GET", `/contacts/${uuid}`, { token });
const listContacts = (token: string, query = "") => api("GET", `/contacts${query}`, { token });
const uuidsOf = (res: { body: any }) => res.body.contacts.map((c: any) => c.contact_uuid);

describe("GET /contacts", () => {
  it("lists live contacts newest first with exact fields and pagination totals", async () => {
    const { token } = await setupAgency();
    const a = await createContact(token, { first_name: "A" });
    const b = await createContact(token, { first_name: "B" });
    const c = await createContact(token, { first_name: "C" });

    const res = await listContacts(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(uuidsOf(res)).toEqual([c.contact_uuid, b.contact_uuid, a.contact_uuid]);
    expect(res.body.contacts[0]).toEqual(c);
    expect(Object.keys(res.body.contacts[0]).sort()).toEqual(CONTACT_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await listContacts(token, "?page=2&limit=2");
    expect(uuidsOf(page2)).toEqual([a.contact_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });

    const beyond = await listContacts(token, "?page=5&limit=2");
    expect(beyond.body.contacts).toEqual([]);
    expect(beyond.body.pagination.total).toBe(3);
  });

  it("filters by q over names, email and phone, case-insensitively", async () => {
    const { token } = await setupAgency();
    const ada = await createContact(token, { first_name: "Ada", last_name: "Lovelace", email: "ada@analytical.org", phone: "+14155550123" });
    const grace = await createContact(token, { first_name: "Grace", last_name: "Hopper", email: "grace@navy.mil", phone: "+12125550199" });
    const percent = await createContact(token, { first_name: "Max", last_name: "100%", email: "max_power@example.com" });

    const cases: [string, string[]][] = [
      ["ada", [ada.contact_uuid]],
      ["LOVELACE", [ada.contact_uuid]],
      ["grace hopper", [grace.contact_uuid]],
      ["NAVY.MIL", [grace.contact_uuid]],
      ["555-0123", [ada.contact_uuid]],
      ["(212) 555", [grace.contact_uuid]],
      ["+1415", [ada.contact_uuid]],
      ["5550", [grace.contact_uuid, ada.contact_uuid]],
      ["100%", [percent.contact_uuid]],
      // Not word starts: "x_p" is a fragment from the middle of max_power, and "%" is punctuation alone.
      ["x_p", []],
      ["%", []],
      ["nobody", []],
    ];
    for (const [q, expected] of cases) {
      const res = await listContacts(token, `?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(uuidsOf(res), `q=${q}`).toEqual(expected);
      expect(res.body.pagination.total, `q=${q}`).toBe(expected.length);
    }
  });

  it("filters by tag and by source, and combines filters", async () => {
    const { token } = await setupAgency();
    const buyer = await createContact(token, { email: "b@example.com", tags: ["buyer", "vip"], source: "Zillow" });
    const seller = await createContact(token, { email: "s@example.com", tags: ["seller"], source: "Zillow" });
    const other = await createContact(token, { email: "o@example.com", tags: ["buyer"], source: "Website" });

    expect(uuidsOf(await listContacts(token, "?tag=buyer"))).toEqual([other.contact_uuid, buyer.contact_uuid]);
    expect(uuidsOf(await listContacts(token, "?tag=vip"))).toEqual([buyer.contact_uuid]);
    expect(uuidsOf(await listContacts(token, "?tag=VIP"))).toEqual([]);
    expect(uuidsOf(await listContacts(token, "?source=Zillow"))).toEqual([seller.contact_uuid, buyer.contact_uuid]);
    expect(uuidsOf(await listContacts(token, "?source=Zillow&tag=buyer"))).toEqual([buyer.contact_uuid]);
    const combined = await listContacts(token, "?source=Website&tag=buyer&q=o%40example");
    expect(uuidsOf(combined)).toEqual([other.contact_uuid]);
    expect(combined.body.pagination.total).toBe(1);
  });

  it("lists soft-deleted contacts instead with deleted=true", async () => {
    const { token } = await setupAgency();
    const kept = await createContact(token, { email: "kept@example.com", tags: ["x"] });
    const gone = await createContact(token, { email: "gone@example.com", tags: ["x"] });
    expect((await api("DELETE", `/contacts/${gone.contact_uuid}`, { token })).status).toBe(200);

    const liveList = await listContacts(token);
    expect(uuidsOf(liveList)).toEqual([kept.contact_uuid]);
    expect(liveList.body.pagination.total).toBe(1);

    const deletedList = await listContacts(token, "?deleted=true");
    expect(uuidsOf(deletedList)).toEqual([gone.contact_uuid]);
    expect(deletedList.body.contacts[0].deleted_at).toMatch(ISO);
    expect(deletedList.body.pagination.total).toBe(1);

    expect(uuidsOf(await listContacts(token, "?deleted=true&tag=x"))).toEqual([gone.contact_uuid]);
    expect(uuidsOf(await listContacts(token, "?deleted=false"))).toEqual([kept.contact_uuid]);
  });

  it("never lists another agency's contacts", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createContact(a.token, { tags: ["vip"], source: "Zillow" });
    const res = await listContacts(b.token, "?tag=vip");
    expect(res.body.contacts).toEqual([]);
    expect((await listContacts(b.token)).body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await listContacts(token, "?deleted=yes"), 400, "deleted must be true or false", "validation_error");
    expectError(await listContacts(token, "?limit=0"), 400, "limit must be a whole number from 1 to 100", "validation_error");
    expectError(await listContacts(token, `?q=${"a".repeat(101)}`), 400, "q must be at most 100 characters", "validation_error");
  });
});

describe("POST /contacts", () => {
  it("creates a contact, normalising email, phone and tags", async () => {
    const { agencyUuid, token } = await setupAgency();
    const pathUuid = await createPathRecord(agencyUuid);
    await createField(token, { key: "lead_stage", label: "Lead stage", type: "select", options: ["new", "qualified"] });
    const res = await api("POST", "/contacts", {
      token,
      body: {
        first_name: "  Ada ",
        last_name: "Lovelace",
        email: "Ada@Example.COM",
        phone: "(415) 555-0123",
        tags: [" buyer", "vip", "buyer "],
        source: "Zillow",
        path_uuid: pathUuid.toUpperCase(),
        custom_fields: { lead_stage: "qualified" },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const contact = res.body.contact;
    expect(Object.keys(contact).sort()).toEqual(CONTACT_KEYS);
    expect(contact).toMatchObject({
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      phone: "+14155550123",
      tags: ["buyer", "vip"],
      source: "Zillow",
      path_uuid: pathUuid,
      custom_fields: { lead_stage: "qualified" },
      deleted_at: null,
    });
    expect(contact.contact_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(contact.created_at).toMatch(ISO);
    expect(contact.updated_at).toBe(contact.created_at);

    const read = await getContact(token, contact.contact_uuid);
    expect(read.body.contact).toEqual(contact);
  });

  it("creates a contact from names alone with empty defaults", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: null, phone: null, source: null, path_uuid: null });
    expect(contact).toMatchObject({ email: null, phone: null, tags: [], source: null, path_uuid: null, custom_fields: {} });
  });

  it("accepts an E.164 number from outside the US", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { phone: "+44 7911 123456" });
    expect(contact.phone).toBe("+447911123456");
  });

  it("rejects a contact without a last name with the specification's message", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, body: { first_name: "Ada" } });
    expectError(res, 400, "first_name and last_name are required", "validation_error");
    expect((await listContacts(token)).body.pagination.total).toBe(0);
  });

  it.each([
    ["no first name", { last_name: "Lovelace" }],
    ["a blank first name", { first_name: "   ", last_name: "Lovelace" }],
    ["a blank last name", { first_name: "Ada", last_name: "" }],
    ["a null first name", { first_name: null, last_name: "Lovelace" }],
    ["an empty body", {}],
  ])("rejects %s with the specification's message", async (_name, body) => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/contacts", { token, body }), 400, "first_name and last_name are required", "validation_error");
  });

  it.each([
    ["an invalid email", { email: "not-an-email" }, "email must be a valid email address"],
    ["a short phone number", { phone: "555-0123" }, PHONE_MESSAGE],
    ["an 11-digit phone without +", { phone: "14155550123" }, PHONE_MESSAGE],
    ["tags that are not an array", { tags: "vip" }, "tags must be an array of strings"],
    ["51 tags", { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tags may contain at most 50 tags"],
    ["a 51-character tag", { tags: ["ok", "x".repeat(51)] }, "tags must each be 1 to 50 characters"],
    ["a blank tag", { tags: ["  "] }, "tags must each be 1 to 50 characters"],
    ["a 101-character source", { source: "s".repeat(101) }, "source must be 1 to 100 characters"],
    ["a malformed path_uuid", { path_uuid: "nope" }, "path_uuid must be a UUID"],
    ["custom_fields that are not an object", { custom_fields: ["a"] }, "custom_fields must be an object of field keys to values"],
    ["an unknown body field", { company: "Acme" }, "Unknown field: company"],
  ])("rejects %s with 400", async (_name, extra, message) => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", ...extra } });
    expectError(res, 400, message, "validation_error");
    expect((await listContacts(token)).body.pagination.total).toBe(0);
  });

  it("rejects an unknown path_uuid and another agency's path, and accepts a known one", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    expectError(await api("POST", "/contacts", { token: a.token, body: { first_name: "A", last_name: "B", path_uuid: RANDOM_UUID } }), 400, "Unknown path_uuid", "validation_error");
    const otherPath = await createPathRecord(b.agencyUuid);
    expectError(await api("POST", "/contacts", { token: a.token, body: { first_name: "A", last_name: "B", path_uuid: otherPath } }), 400, "Unknown path_uuid", "validation_error");
    expect((await listContacts(a.token)).body.pagination.total).toBe(0);

    const ownPath = await createPathRecord(a.agencyUuid);
    const contact = await createContact(a.token, { path_uuid: ownPath });
    expect(contact.path_uuid).toBe(ownPath);
  });

  it("accepts custom_fields of every type that match live fields", async () => {
    const { token } = await setupAgency();
    await createEveryField(token);
    const values = {
      notes: "Prefers email",
      budget: 450000.5,
      move_date: "2027-02-28",
      pre_approved: true,
      lead_stage: "qualified",
      interests: ["buy", "rent"],
    };
    const contact = await createContact(token, { custom_fields: values });
    expect(contact.custom_fields).toEqual(values);
    expect((await getContact(token, contact.contact_uuid)).body.contact.custom_fields).toEqual(values);
  });

  it.each([
    ["an unknown key", { colour: "red" }, "custom_fields.colour is not a field of this agency"],
    ["text over 1000 characters", { notes: "n".repeat(1001) }, "custom_fields.notes must be a string of at most 1000 characters"],
    ["a number for a text field", { notes: 5 }, "custom_fields.notes must be a string of at most 1000 characters"],
    ["a numeric string for a number field", { budget: "12" }, "custom_fields.budget must be a number"],
    ["an impossible date", { move_date: "2027-02-30" }, "custom_fields.move_date must be a date in YYYY-MM-DD format"],
    ["a date with a time", { move_date: "2027-02-01T10:00:00Z" }, "custom_fields.move_date must be a date in YYYY-MM-DD format"],
    ["a string for a boolean", { pre_approved: "yes" }, "custom_fields.pre_approved must be true or false"],
    ["a value outside the options", { lead_stage: "lost" }, "custom_fields.lead_stage must be one of: new, qualified, won"],
    ["a repeated multiselect value", { interests: ["buy", "buy"] }, "custom_fields.interests must be an array of distinct values from: buy, sell, rent"],
    ["a multiselect string", { interests: "buy" }, "custom_fields.interests must be an array of distinct values from: buy, sell, rent"],
  ])("rejects custom_fields with %s", async (_name, customFields, message) => {
    const { token } = await setupAgency();
    await createEveryField(token);
    const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", custom_fields: customFields } });
    expectError(res, 400, message, "validation_error");
    expect((await listContacts(token)).body.pagination.total).toBe(0);
  });

  it("rejects custom_fields of an archived field and of another agency's field", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const field = await createField(a.token, { key: "budget", label: "Budget", type: "number" });
    await createField(b.token, { key: "score", label: "Score", type: "number" });
    expect((await api("DELETE", `/fields/${field.field_uuid}`, { token: a.token })).status).toBe(200);
    const archived = await api("POST", "/contacts", { token: a.token, body: { first_name: "A", last_name: "B", custom_fields: { budget: 1 } } });
    expectError(archived, 400, "custom_fields.budget is not a field of this agency", "validation_error");
    const foreign = await api("POST", "/contacts", { token: a.token, body: { first_name: "A", last_name: "B", custom_fields: { score: 1 } } });
    expectError(foreign, 400, "custom_fields.score is not a field of this agency", "validation_error");
  });

  it("checks values against the field's current options", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, { key: "lead_stage", label: "Stage", type: "select", options: ["new", "won"] });
    await api("PATCH", `/fields/${field.field_uuid}`, { token, body: { options: ["new"] } });
    const res = await api("POST", "/contacts", { token, body: { first_name: "A", last_name: "B", custom_fields: { lead_stage: "won" } } });
    expectError(res, 400, "custom_fields.lead_stage must be one of: new", "validation_error");
  });

  it("rejects a duplicate email with 409 naming the existing contact", async () => {
    const { token } = await setupAgency();
    const first = await createContact(token, { email: "ada@example.com" });
    const res = await api("POST", "/contacts", { token, body: { first_name: "Other", last_name: "Person", email: "ADA@example.com" } });
    expectError(res, 409, `A contact with this email already exists: ${first.contact_uuid}`, "conflict");
    expect((await listContacts(token)).body.pagination.total).toBe(1);
  });

  it("rejects a duplicate phone in another format with 409 naming the existing contact", async () => {
    const { token } = await setupAgency();
    const first = await createContact(token, { phone: "+14155550123" });
    const res = await api("POST", "/contacts", { token, body: { first_name: "Other", last_name: "Person", phone: "415.555.0123" } });
    expectError(res, 409, `A contact with this phone already exists: ${first.contact_uuid}`, "conflict");
  });

  it("allows the same email in another agency and after the holder is deleted", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const first = await createContact(a.token, { email: "ada@example.com", phone: phoneAt(1) });
    await createContact(b.token, { email: "ada@example.com", phone: phoneAt(1) });
    await api("DELETE", `/contacts/${first.contact_uuid}`, { token: a.token });
    const again = await createContact(a.token, { email: "ada@example.com", phone: phoneAt(1) });
    expect(again.contact_uuid).not.toBe(first.contact_uuid);
  });

  it("lets exactly one of two concurrent creates with one email succeed", async () => {
    const { token } = await setupAgency();
    const [one, two] = await Promise.all(
      ["One", "Two"].map((first_name) => api("POST", "/contacts", { token, body: { first_name, last_name: "Racer", email: "race@example.com" } })),
    );
    expect([one!.status, two!.status].sort()).toEqual([201, 409]);
    const winner = one!.status === 201 ? one! : two!;
    const loser = one!.status === 201 ? two! : one!;
    expectError(loser, 409, `A contact with this email already exists: ${winner.body.contact.contact_uuid}`, "conflict");
    const list = await listContacts(token);
    expect(uuidsOf(list)).toEqual([winner.body.contact.contact_uuid]);
  });
});

describe("GET /contacts/tags", () => {
  it("counts tags over live contacts only, most used first", async () => {
    const { token } = await setupAgency();
    await createContact(token, { email: "1@example.com", tags: ["buyer", "vip"] });
    await createContact(token, { email: "2@example.com", tags: ["buyer"] });
    await createContact(token, { email: "3@example.com", tags: ["seller", "buyer"] });
    const gone = await createContact(token, { email: "4@example.com", tags: ["seller", "zombie"] });
    await api("DELETE", `/contacts/${gone.contact_uuid}`, { token });

    const res = await api("GET", "/contacts/tags", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      tags: [
        { tag: "buyer", count: 3 },
        { tag: "seller", count: 1 },
        { tag: "vip", count: 1 },
      ],
    });

    await api("POST", `/contacts/${gone.contact_uuid}/restore`, { token });
    const restored = await api("GET", "/contacts/tags", { token });
    expect(restored.body.tags).toEqual([
      { tag: "buyer", count: 3 },
      { tag: "seller", count: 2 },
      { tag: "vip", count: 1 },
      { tag: "zombie", count: 1 },
    ]);
  });

  it("follows tag changes and ignores other agencies", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const contact = await createContact(a.token, { tags: ["old"] });
    await createContact(b.token, { tags: ["foreign"] });
    await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: a.token, body: { tags: ["new", "newer"] } });
    const res = await api("GET", "/contacts/tags", { token: a.token });
    expect(res.body.tags).toEqual([
      { tag: "new", count: 1 },
      { tag: "newer", count: 1 },
    ]);
  });

  it(`lists only the ${MAX_LISTED_TAGS} most used tags`, async () => {
    const { token } = await setupAgency();
    // Every contact carries "popular" and tags of its own: more distinct tags than are listed.
    const contacts = Math.ceil(MAX_LISTED_TAGS / (MAX_TAGS - 1)) + 1;
    const own = (i: number) => Array.from({ length: MAX_TAGS - 1 }, (_, j) => `c${String(i).padStart(2, "0")}-${String(j).padStart(2, "0")}`);
    for (let i = 0; i < contacts; i++) await createContact(token, { tags: ["popular", ...own(i)] });

    const res = await api("GET", "/contacts/tags", { token });
    expect(res.status).toBe(200);
    expect(res.body.tags).toHaveLength(MAX_LISTED_TAGS);
    expect(res.body.tags[0]).toEqual({ tag: "popular", count: contacts });
    const rest = Array.from({ length: contacts }, (_, i) => own(i)).flat().sort();
    expect(res.body.tags.slice(1)).toEqual(rest.slice(0, MAX_LISTED_TAGS - 1).map((tag) => ({ tag, count: 1 })));
  });

  it("answers an empty list for an agency without tags", async () => {
    const { token } = await setupAgency();
    await createContact(token);
    expect((await api("GET", "/contacts/tags", { token })).body).toEqual({ success: true, tags: [] });
  });
});

describe("GET /contacts/sources", () => {
  it("counts sources over live contacts only, most used first", async () => {
    const { token } = await setupAgency();
    await createContact(token, { email: "1@example.com", source: "Zillow" });
    await createContact(token, { email: "2@example.com", source: "Zillow" });
    await createContact(token, { email: "3@example.com", source: "Website" });
    await createContact(token, { email: "4@example.com" });
    const gone = await createContact(token, { email: "5@example.com", source: "Website" });
    const gone2 = await createContact(token, { email: "6@example.com", source: "Referral" });
    await api("DELETE", `/contacts/${gone.contact_uuid}`, { token });
    await api("DELETE", `/contacts/${gone2.contact_uuid}`, { token });

    const res = await api("GET", "/contacts/sources", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      sources: [
        { source: "Zillow", count: 2 },
        { source: "Website", count: 1 },
      ],
    });
  });

  it(`lists only the ${MAX_LISTED_SOURCES} most used sources`, async () => {
    const { agencyUuid, token } = await setupAgency();
    await createContact(token, { email: "1@example.com", source: "Zillow" });
    await createContact(token, { email: "2@example.com", source: "Zillow" });
    // One contact each for more other sources than are listed, written straight to D1.
    const now = new Date().toISOString();
    await (await dbOf(agencyUuid)).prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
       SELECT lower(hex(randomblob(16))), ?, 'Filler', 'Contact', NULL, NULL, '[]', printf('source-%04d', i), NULL, '{}', ?, ?, NULL FROM n`,
    )
      .bind(MAX_LISTED_SOURCES, agencyUuid, now, now)
      .run();

    const res = await api("GET", "/contacts/sources", { token });
    expect(res.status).toBe(200);
    expect(res.body.sources).toHaveLength(MAX_LISTED_SOURCES);
    expect(res.body.sources[0]).toEqual({ source: "Zillow", count: 2 });
    expect(res.body.sources[1]).toEqual({ source: "source-0001", count: 1 });
    expect(res.body.sources.at(-1)).toEqual({ source: `source-${String(MAX_LISTED_SOURCES - 1).padStart(4, "0")}`, count: 1 });
  });

  it("ignores other agencies' contacts", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createContact(b.token, { source: "Zillow" });
    expect((await api("GET", "/contacts/sources", { token: a.token })).body).toEqual({ success: true, sources: [] });
  });
});

describe("GET /contacts/{contact_uuid}", () => {
  it("returns the contact, also for an upper-case uuid", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "ada@example.com", tags: ["vip"] });
    const res = await getContact(token, contact.contact_uuid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, contact });
    expect((await getContact(token, contact.contact_uuid.toUpperCase())).body.contact).toEqual(contact);
  });

  it("rejects a malformed contact_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await getContact(token, "not-a-uuid"), 400, "contact_uuid must be a UUID", "validation_error");
  });

  it("answers 404 for a random uuid, another agency's contact and a deleted contact", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const contact = await createContact(a.token);
    expectError(await getContact(a.token, RANDOM_UUID), 404, "Contact not found", "not_found");
    expectError(await getContact(b.token, contact.contact_uuid), 404, "Contact not found", "not_found");
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: a.token });
    expectError(await getContact(a.token, contact.contact_uuid), 404, "Contact not found", "not_found");
  });
});

describe("PATCH /contacts/{contact_uuid}", () => {
  it("changes only the fields sent", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "ada@example.com", phone: "+14155550123", tags: ["vip"], source: "Zillow" });
    const res = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { last_name: "King", email: "Ada.King@Example.com" } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.contact).toEqual({
      ...contact,
      last_name: "King",
      email: "ada.king@example.com",
      updated_at: expect.stringMatching(ISO),
    });
    expect((await getContact(token, contact.contact_uuid)).body.contact).toEqual(res.body.contact);
  });

  it("clears nullable fields with null and answers an empty patch with the contact unchanged", async () => {
    const { agencyUuid, token } = await setupAgency();
    const pathUuid = await createPathRecord(agencyUuid);
    const contact = await createContact(token, { email: "ada@example.com", phone: "+14155550123", source: "Zillow", path_uuid: pathUuid });
    const empty = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.contact).toEqual(contact);
    const res = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { email: null, phone: null, source: null, path_uuid: null } });
    expect(res.status).toBe(200);
    expect(res.body.contact).toMatchObject({ email: null, phone: null, source: null, path_uuid: null, first_name: "Ada" });
  });

  it("replaces tags and keeps the tag filter in sync", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { tags: ["buyer", "vip"] });
    const res = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { tags: ["seller", " seller "] } });
    expect(res.body.contact.tags).toEqual(["seller"]);
    expect(uuidsOf(await listContacts(token, "?tag=buyer"))).toEqual([]);
    expect(uuidsOf(await listContacts(token, "?tag=seller"))).toEqual([contact.contact_uuid]);
    const cleared = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { tags: [] } });
    expect(cleared.body.contact.tags).toEqual([]);
    expect((await api("GET", "/contacts/tags", { token })).body.tags).toEqual([]);
  });

  it("merges custom_fields, removing keys sent as null", async () => {
    const { token } = await setupAgency();
    await createEveryField(token);
    const contact = await createContact(token, { custom_fields: { notes: "hi", budget: 10, lead_stage: "new" } });
    const res = await api("PATCH", `/contacts/${contact.contact_uuid}`, {
      token,
      body: { custom_fields: { budget: 20, notes: null, interests: ["sell"] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.contact.custom_fields).toEqual({ budget: 20, lead_stage: "new", interests: ["sell"] });
    expect((await getContact(token, contact.contact_uuid)).body.contact.custom_fields).toEqual(res.body.contact.custom_fields);
  });

  it("rejects writing an archived field but lets null clear its stored value", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, { key: "budget", label: "Budget", type: "number" });
    const contact = await createContact(token, { custom_fields: { budget: 10 } });
    await api("DELETE", `/fields/${field.field_uuid}`, { token });
    const write = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { custom_fields: { budget: 11 } } });
    expectError(write, 400, "custom_fields.budget is not a field of this agency", "validation_error");
    expect((await getContact(token, contact.contact_uuid)).body.contact.custom_fields).toEqual({ budget: 10 });
    const clear = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { custom_fields: { budget: null } } });
    expect(clear.status).toBe(200);
    expect(clear.body.contact.custom_fields).toEqual({});
    const unknown = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { custom_fields: { never_defined: null } } });
    expectError(unknown, 400, "custom_fields.never_defined is not a field of this agency", "validation_error");
  });

  it.each([
    ["a blank first name", { first_name: " " }, "first_name cannot be blank"],
    ["a null last name", { last_name: null }, "last_name cannot be null"],
    ["an invalid email", { email: "ada@" }, "email must be a valid email address"],
    ["an invalid phone", { phone: "12345" }, PHONE_MESSAGE],
    ["51 tags", { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tags may contain at most 50 tags"],
    ["a blank source", { source: "" }, "source must be 1 to 100 characters"],
    ["an unknown body field", { deleted_at: null }, "Unknown field: deleted_at"],
    ["an unknown path_uuid", { path_uuid: RANDOM_UUID }, "Unknown path_uuid"],
    ["a bad custom field value", { custom_fields: { budget: "lots" } }, "custom_fields.budget must be a number"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { token } = await setupAgency();
    await createField(token, { key: "budget", label: "Budget", type: "number" });
    const contact = await createContact(token, { email: "ada@example.com" });
    expectError(await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body }), 400, message, "validation_error");
    expect((await getContact(token, contact.contact_uuid)).body.contact).toEqual(contact);
  });

  it("accepts a known path_uuid", async () => {
    const { agencyUuid, token } = await setupAgency();
    const contact = await createContact(token);
    const pathUuid = await createPathRecord(agencyUuid);
    const res = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { path_uuid: pathUuid } });
    expect(res.status).toBe(200);
    expect(res.body.contact.path_uuid).toBe(pathUuid);
  });

  it("rejects taking another live contact's email or phone with 409 naming it", async () => {
    const { token } = await setupAgency();
    const holder = await createContact(token, { email: "taken@example.com", phone: "+14155550100" });
    const contact = await createContact(token, { email: "mine@example.com", phone: "+14155550101" });
    expectError(
      await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { email: "Taken@example.com" } }),
      409,
      `A contact with this email already exists: ${holder.contact_uuid}`,
      "conflict",
    );
    expectError(
      await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { phone: "4155550100", tags: ["x"] } }),
      409,
      `A contact with this phone already exists: ${holder.contact_uuid}`,
      "conflict",
    );
    expect((await getContact(token, contact.contact_uuid)).body.contact).toEqual(contact);
    // Sending its own email again is not a conflict.
    const same = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { email: "mine@example.com" } });
    expect(same.status).toBe(200);
  });

  it("answers 404 for a random uuid, another agency's contact and a deleted contact", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const contact = await createContact(a.token);
    const body = { first_name: "Eve" };
    expectError(await api("PATCH", `/contacts/${RANDOM_UUID}`, { token: a.token, body }), 404, "Contact not found", "not_found");
    expectError(await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: b.token, body: { tags: ["stolen"] } }), 404, "Contact not found", "not_found");
    expect((await getContact(a.token, contact.contact_uuid)).body.contact).toEqual(contact);
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: a.token });
    expectError(await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: a.token, body }), 404, "Contact not found", "not_found");
  });

  it("requires the contacts scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const contact = await createContact(token);
    await expectScopeRequired(agencyUuid, "PATCH", `/contacts/${contact.contact_uuid}`, "contacts", { body: { first_name: "Eve" } });
    expect((await getContact(token, contact.contact_uuid)).body.contact.first_name).toBe("Ada");
  });
});

describe("DELETE /contacts/{contact_uuid}", () => {
  it("soft-deletes the contact: 200 with deleted_at, then 404 and absent from lists", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "ada@example.com" });
    const res = await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.contact).toEqual({ ...contact, deleted_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });

    expectError(await getContact(token, contact.contact_uuid), 404, "Contact not found");
    expect((await listContacts(token)).body.pagination.total).toBe(0);
    expect((await listContacts(token, "?deleted=true")).body.contacts).toEqual([res.body.contact]);
  });

  it("answers 404 when deleting a deleted contact again", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token);
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    expectError(await api("DELETE", `/contacts/${contact.contact_uuid}`, { token }), 404, "Contact not found", "not_found");
  });

  it("answers 404 for a random uuid and another agency's contact, leaving it live", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const contact = await createContact(a.token);
    expectError(await api("DELETE", `/contacts/${RANDOM_UUID}`, { token: a.token }), 404, "Contact not found", "not_found");
    expectError(await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: b.token }), 404, "Contact not found", "not_found");
    expect((await getContact(a.token, contact.contact_uuid)).status).toBe(200);
  });

  it("rejects a malformed contact_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("DELETE", "/contacts/42", { token }), 400, "contact_uuid must be a UUID", "validation_error");
  });

  it("requires the contacts scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const contact = await createContact(token);
    await expectScopeRequired(agencyUuid, "DELETE", `/contacts/${contact.contact_uuid}`, "contacts");
    expect((await getContact(token, contact.contact_uuid)).status).toBe(200);
  });
});

describe("POST /contacts/{contact_uuid}/restore", () => {
  it("restores a soft-deleted contact", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "ada@example.com", tags: ["vip"] });
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    const res = await api("POST", `/contacts/${contact.contact_uuid}/restore`, { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.contact).toEqual({ ...contact, deleted_at: null, updated_at: expect.stringMatching(ISO) });
    expect((await getContact(token, contact.contact_uuid)).body.contact).toEqual(res.body.contact);
    expect(uuidsOf(await listContacts(token, "?tag=vip"))).toEqual([contact.contact_uuid]);
    expect((await listContacts(token, "?deleted=true")).body.pagination.total).toBe(0);
  });

  it("answers 409 for a contact that is not deleted", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token);
    expectError(await api("POST", `/contacts/${contact.contact_uuid}/restore`, { token }), 409, "Contact is not deleted", "conflict");
  });

  it("answers 409 naming the live contact that now holds the email or phone", async () => {
    const { token } = await setupAgency();
    const old = await createContact(token, { email: "ada@example.com", phone: "+14155550123" });
    await api("DELETE", `/contacts/${old.contact_uuid}`, { token });
    const byEmail = await createContact(token, { first_name: "New", email: "ada@example.com" });
    expectError(
      await api("POST", `/contacts/${old.contact_uuid}/restore`, { token }),
      409,
      `A contact with this email already exists: ${byEmail.contact_uuid}`,
      "conflict",
    );
    await api("PATCH", `/contacts/${byEmail.contact_uuid}`, { token, body: { email: "other@example.com", phone: "+14155550123" } });
    expectError(
      await api("POST", `/contacts/${old.contact_uuid}/restore`, { token }),
      409,
      `A contact with this phone already exists: ${byEmail.contact_uuid}`,
      "conflict",
    );
    expectError(await getContact(token, old.contact_uuid), 404, "Contact not found");
  });

  it("answers 404 for a random uuid and another agency's deleted contact", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const contact = await createContact(a.token);
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: a.token });
    expectError(await api("POST", `/contacts/${RANDOM_UUID}/restore`, { token: a.token }), 404, "Contact not found", "not_found");
    expectError(await api("POST", `/contacts/${contact.contact_uuid}/restore`, { token: b.token }), 404, "Contact not found", "not_found");
    expectError(await getContact(a.token, contact.contact_uuid), 404, "Contact not found");
  });

  it("rejects a malformed contact_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/contacts/abc/restore", { token }), 400, "contact_uuid must be a UUID", "validation_error");
  });

  it("requires the contacts scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const contact = await createContact(token);
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    await expectScopeRequired(agencyUuid, "POST", `/contacts/${contact.contact_uuid}/restore`, "contacts");
    expectError(await getContact(token, contact.contact_uuid), 404, "Contact not found");
  });
});

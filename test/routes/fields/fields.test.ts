import { describe, expect, it } from "vitest";
import { api, expectError } from "../../helpers/http";
import { setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const KEY_FORMAT =
  "key must start with a lowercase letter and hold only lowercase letters, digits and underscores (at most 64 characters)";

const stageField = { key: "lead_stage", label: "Lead stage", type: "select", options: ["new", "qualified", "won"] };

async function createField(token: string, body: Record<string, unknown>) {
  const res = await api("POST", "/fields", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.field as Record<string, any>;
}

const listFields = (token: string, query = "") => api("GET", `/fields${query}`, { token });

describe("GET /fields", () => {
  it("lists live fields oldest first with pagination totals", async () => {
    const { token } = await setupAgency();
    const a = await createField(token, { key: "budget", label: "Budget", type: "number" });
    const b = await createField(token, { key: "move_date", label: "Move date", type: "date" });
    const c = await createField(token, stageField);

    const all = await listFields(token);
    expect(all.status).toBe(200);
    expect(all.body.success).toBe(true);
    expect(all.body.fields.map((f: any) => f.field_uuid)).toEqual([a.field_uuid, b.field_uuid, c.field_uuid]);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });
    expect(all.body.fields[2]).toEqual(c);

    const page2 = await listFields(token, "?page=2&limit=2");
    expect(page2.body.fields.map((f: any) => f.field_uuid)).toEqual([c.field_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("leaves archived fields out unless include_archived=true", async () => {
    const { token } = await setupAgency();
    const live = await createField(token, { key: "budget", label: "Budget", type: "number" });
    const gone = await createField(token, { key: "old_notes", label: "Old notes", type: "text" });
    expect((await api("DELETE", `/fields/${gone.field_uuid}`, { token })).status).toBe(200);

    const liveOnly = await listFields(token);
    expect(liveOnly.body.fields.map((f: any) => f.field_uuid)).toEqual([live.field_uuid]);
    expect(liveOnly.body.pagination.total).toBe(1);

    const withArchived = await listFields(token, "?include_archived=true");
    expect(withArchived.body.fields.map((f: any) => f.field_uuid)).toEqual([live.field_uuid, gone.field_uuid]);
    expect(withArchived.body.fields[1].archived_at).toMatch(ISO);
    expect(withArchived.body.pagination.total).toBe(2);

    const explicitFalse = await listFields(token, "?include_archived=false");
    expect(explicitFalse.body.pagination.total).toBe(1);
  });

  it("never shows another agency's fields", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createField(a.token, stageField);
    const res = await listFields(b.token);
    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await listFields(token, "?include_archived=yes"), 400, "include_archived must be true or false", "validation_error");
    expectError(await listFields(token, "?limit=101"), 400, "limit must be a whole number from 1 to 100", "validation_error");
    expectError(await listFields(token, "?page=0"), 400, "page must be a whole number from 1 to 1000000", "validation_error");
  });
});

describe("POST /fields", () => {
  it("creates a select field and returns the full record", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/fields", { token, body: { ...stageField, label: "  Lead stage  " } });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const field = res.body.field;
    expect(Object.keys(field).sort()).toEqual(
      ["archived_at", "created_at", "field_uuid", "key", "label", "options", "type", "updated_at"].sort(),
    );
    expect(field).toMatchObject({ key: "lead_stage", label: "Lead stage", type: "select", options: ["new", "qualified", "won"], archived_at: null });
    expect(field.field_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(field.created_at).toMatch(ISO);
    expect(field.updated_at).toBe(field.created_at);

    const listed = await listFields(token);
    expect(listed.body.fields).toEqual([field]);
  });

  it("creates every non-option type with empty options", async () => {
    const { token } = await setupAgency();
    for (const type of ["text", "number", "date", "boolean"]) {
      const field = await createField(token, { key: `f_${type}`, label: type, type });
      expect(field.type).toBe(type);
      expect(field.options).toEqual([]);
    }
    const multi = await createField(token, { key: "interests", label: "Interests", type: "multiselect", options: ["buy", "sell"] });
    expect(multi.options).toEqual(["buy", "sell"]);
  });

  it.each([
    ["a missing key", { label: "X", type: "text" }, "key is required"],
    ["a key starting with a digit", { key: "1abc", label: "X", type: "text" }, KEY_FORMAT],
    ["an upper-case key", { key: "LeadStage", label: "X", type: "text" }, KEY_FORMAT],
    ["a 65-character key", { key: `a${"b".repeat(64)}`, label: "X", type: "text" }, KEY_FORMAT],
    ["a missing label", { key: "a", type: "text" }, "label is required"],
    ["a blank label", { key: "a", label: "   ", type: "text" }, "label must be 1 to 100 characters"],
    ["a 101-character label", { key: "a", label: "x".repeat(101), type: "text" }, "label must be 1 to 100 characters"],
    ["a missing type", { key: "a", label: "X" }, "type is required"],
    ["an unknown type", { key: "a", label: "X", type: "color" }, "type must be one of: text, number, date, boolean, select, multiselect"],
    ["a select without options", { key: "a", label: "X", type: "select" }, "options are required for select and multiselect fields"],
    ["a multiselect with empty options", { key: "a", label: "X", type: "multiselect", options: [] }, "options must contain at least one value"],
    ["options on a text field", { key: "a", label: "X", type: "text", options: ["x"] }, "options are only allowed for select and multiselect fields"],
    ["repeated options", { key: "a", label: "X", type: "select", options: ["x", " x "] }, "options must not repeat"],
    ["a blank option", { key: "a", label: "X", type: "select", options: ["x", " "] }, "options must each be 1 to 100 characters"],
    ["a 101-character option", { key: "a", label: "X", type: "select", options: ["y".repeat(101)] }, "options must each be 1 to 100 characters"],
    ["201 options", { key: "a", label: "X", type: "select", options: Array.from({ length: 201 }, (_, i) => `o${i}`) }, "options may contain at most 200 values"],
    ["an unknown body field", { key: "a", label: "X", type: "text", required: true }, "Unknown field: required"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { token } = await setupAgency();
    const res = await api("POST", "/fields", { token, body });
    expectError(res, 400, message, "validation_error");
    expect((await listFields(token)).body.pagination.total).toBe(0);
  });

  it("rejects a key already used by a live field with 409 naming that field", async () => {
    const { token } = await setupAgency();
    const first = await createField(token, stageField);
    const res = await api("POST", "/fields", { token, body: { key: "lead_stage", label: "Other", type: "text" } });
    expectError(res, 409, `A field with this key already exists: ${first.field_uuid}`, "conflict");
  });

  it("lets two concurrent creates of one key produce exactly one field", async () => {
    const { token } = await setupAgency();
    const results = await Promise.all([0, 1, 2].map((i) => api("POST", "/fields", { token, body: { key: "race", label: `R${i}`, type: "text" } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect((await listFields(token)).body.pagination.total).toBe(1);
  });

  it("frees the key of an archived field for a new field", async () => {
    const { token } = await setupAgency();
    const old = await createField(token, stageField);
    await api("DELETE", `/fields/${old.field_uuid}`, { token });
    const reused = await createField(token, { key: "lead_stage", label: "Stage", type: "text" });
    expect(reused.field_uuid).not.toBe(old.field_uuid);
    expect(reused.type).toBe("text");
  });

  it("allows the same key in two agencies", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createField(a.token, stageField);
    await createField(b.token, stageField);
  });
});

describe("PATCH /fields/{field_uuid}", () => {
  it("changes the label and narrows the options", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, stageField);
    const res = await api("PATCH", `/fields/${field.field_uuid}`, { token, body: { label: "Pipeline stage", options: ["new", "won"] } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.field).toMatchObject({ ...field, label: "Pipeline stage", options: ["new", "won"], updated_at: expect.stringMatching(ISO) });
    expect(res.body.field.created_at).toBe(field.created_at);

    const listed = await listFields(token);
    expect(listed.body.fields).toEqual([res.body.field]);
  });

  it("changes only what is sent", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, stageField);
    const res = await api("PATCH", `/fields/${field.field_uuid.toUpperCase()}`, { token, body: { label: "Stage" } });
    expect(res.status).toBe(200);
    expect(res.body.field.options).toEqual(stageField.options);
    expect(res.body.field.label).toBe("Stage");
    const empty = await api("PATCH", `/fields/${field.field_uuid}`, { token, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.field.label).toBe("Stage");
  });

  it.each([
    ["the key", { key: "other" }, "key cannot be changed; archive this field and create a new one"],
    ["the type", { type: "text" }, "type cannot be changed; archive this field and create a new one"],
    ["a blank label", { label: "" }, "label must be 1 to 100 characters"],
    ["empty options", { options: [] }, "options must contain at least one value"],
    ["repeated options", { options: ["a", "a"] }, "options must not repeat"],
    ["an unknown body field", { color: "red" }, "Unknown field: color"],
  ])("rejects changing %s with 400", async (_name, body, message) => {
    const { token } = await setupAgency();
    const field = await createField(token, stageField);
    const res = await api("PATCH", `/fields/${field.field_uuid}`, { token, body });
    expectError(res, 400, message, "validation_error");
    expect((await listFields(token)).body.fields).toEqual([field]);
  });

  it("rejects options on a field whose type has none", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, { key: "notes", label: "Notes", type: "text" });
    const res = await api("PATCH", `/fields/${field.field_uuid}`, { token, body: { options: ["a"] } });
    expectError(res, 400, "options are only allowed for select and multiselect fields", "validation_error");
  });

  it("rejects a malformed field_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("PATCH", "/fields/not-a-uuid", { token, body: { label: "X" } }), 400, "field_uuid must be a UUID");
  });

  it("answers 404 for a random uuid, another agency's field and an archived field", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const field = await createField(a.token, stageField);
    expectError(await api("PATCH", `/fields/${RANDOM_UUID}`, { token: a.token, body: { label: "X" } }), 404, "Field not found", "not_found");
    expectError(await api("PATCH", `/fields/${field.field_uuid}`, { token: b.token, body: { label: "X" } }), 404, "Field not found", "not_found");
    expect((await listFields(a.token)).body.fields[0].label).toBe("Lead stage");

    await api("DELETE", `/fields/${field.field_uuid}`, { token: a.token });
    expectError(await api("PATCH", `/fields/${field.field_uuid}`, { token: a.token, body: { label: "X" } }), 404, "Field not found", "not_found");
  });
});

describe("DELETE /fields/{field_uuid}", () => {
  it("archives the field and answers with it", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, stageField);
    const res = await api("DELETE", `/fields/${field.field_uuid}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.field).toEqual({ ...field, archived_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });

    expect((await listFields(token)).body.fields).toEqual([]);
    expect((await listFields(token, "?include_archived=true")).body.fields).toEqual([res.body.field]);
  });

  it("answers 404 when archiving an archived field again", async () => {
    const { token } = await setupAgency();
    const field = await createField(token, stageField);
    expect((await api("DELETE", `/fields/${field.field_uuid}`, { token })).status).toBe(200);
    expectError(await api("DELETE", `/fields/${field.field_uuid}`, { token }), 404, "Field not found", "not_found");
  });

  it("answers 404 for a random uuid and another agency's field, leaving it live", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const field = await createField(a.token, stageField);
    expectError(await api("DELETE", `/fields/${RANDOM_UUID}`, { token: a.token }), 404, "Field not found", "not_found");
    expectError(await api("DELETE", `/fields/${field.field_uuid}`, { token: b.token }), 404, "Field not found", "not_found");
    expect((await listFields(a.token)).body.fields).toEqual([field]);
  });

  it("rejects a malformed field_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("DELETE", "/fields/123", { token }), 400, "field_uuid must be a UUID", "validation_error");
  });

  it("requires the fields scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const field = await createField(token, stageField);
    await expectScopeRequired(agencyUuid, "DELETE", `/fields/${field.field_uuid}`, "fields");
    expect((await listFields(token)).body.fields).toEqual([field]);
  });
});

import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import { admin, api, BASE, expectError } from "../../helpers/http";
import { createKey, setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import { book, bookingBody, freeStarts, nextWeekday, openBusinessHours } from "../../helpers/calendar-factories";
import {
  CONTENT_STEP,
  FORM_STEP,
  QUESTION_STEP,
  archivePath,
  createContact,
  createPath,
  pathEvent,
  publishPath,
} from "../../helpers/path-factories";

/** A GET with the benchmark's D1 metrics on: the round trips of this one request. */
async function measured(path: string, token: string) {
  const res = await app.fetch(
    new Request(`${BASE}/api/v2${path}`, { headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" } }),
    { ...env, BENCH_METRICS: "on" },
    createExecutionContext(),
  );
  return { status: res.status, body: (await res.json()) as any, roundTrips: Number(res.headers.get("X-Bench-D1-Round-Trips")) };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const PATH_KEYS = [
  "path_uuid",
  "name",
  "description",
  "status",
  "steps",
  "version",
  "published_version",
  "published_at",
  "archived_at",
  "created_at",
  "updated_at",
].sort();
const CATALOG_KEYS = ["path_uuid", "name", "status", "published_at"].sort();
const VERSION_KEYS = ["path_uuid", "version", "name", "description", "steps", "published_at"].sort();

/** The stored form of the factory steps: description always present, options/fields only on their types. */
const STORED_CONTENT = { ...CONTENT_STEP, description: null };
const STORED_QUESTION = { ...QUESTION_STEP, description: null };
const STORED_FORM = { ...FORM_STEP, description: null };

const getPath = (token: string, uuid: string) => api("GET", `/paths/${uuid}`, { token });
const listPaths = (token: string, query = "") => api("GET", `/paths${query}`, { token });
const uuidsOf = (res: { body: any }) => res.body.paths.map((p: any) => p.path_uuid);

describe("GET /paths", () => {
  it("lists paths newest first with full records and pagination totals", async () => {
    const { token } = await setupAgency();
    const a = await createPath(token, { name: "A" });
    const b = await createPath(token, { name: "B", steps: [CONTENT_STEP] });
    const c = await createPath(token, { name: "C" });

    const res = await listPaths(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(uuidsOf(res)).toEqual([c.path_uuid, b.path_uuid, a.path_uuid]);
    expect(res.body.paths[1]).toEqual(b);
    expect(Object.keys(res.body.paths[0]).sort()).toEqual(PATH_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await listPaths(token, "?page=2&limit=2");
    expect(uuidsOf(page2)).toEqual([a.path_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("leaves archived paths out unless status=archived, and filters by status", async () => {
    const { token } = await setupAgency();
    const draft = await createPath(token, { name: "Draft" });
    const live = await createPath(token, { name: "Live", steps: [CONTENT_STEP] });
    await publishPath(token, live.path_uuid);
    const gone = await createPath(token, { name: "Gone" });
    await archivePath(token, gone.path_uuid);

    expect(uuidsOf(await listPaths(token))).toEqual([live.path_uuid, draft.path_uuid]);
    expect((await listPaths(token)).body.pagination.total).toBe(2);
    expect(uuidsOf(await listPaths(token, "?status=draft"))).toEqual([draft.path_uuid]);
    expect(uuidsOf(await listPaths(token, "?status=published"))).toEqual([live.path_uuid]);
    const archived = await listPaths(token, "?status=archived");
    expect(uuidsOf(archived)).toEqual([gone.path_uuid]);
    expect(archived.body.paths[0]).toMatchObject({ status: "archived", archived_at: expect.stringMatching(ISO) });
  });

  it("gives a key with only the analytics scope the thin catalog", async () => {
    const { agencyUuid, token } = await setupAgency();
    const draft = await createPath(token, { name: "Draft path" });
    const live = await createPath(token, { name: "Live path", description: "secret copy", steps: [QUESTION_STEP] });
    const published = await publishPath(token, live.path_uuid);

    const analyticsKey = await createKey(agencyUuid, { scopes: ["analytics"] });
    const res = await listPaths(analyticsKey.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      paths: [
        { path_uuid: live.path_uuid, name: "Live path", status: "published", published_at: published.published_at },
        { path_uuid: draft.path_uuid, name: "Draft path", status: "draft", published_at: null },
      ],
      pagination: { page: 1, limit: 20, total: 2, next_cursor: null },
    });
    for (const entry of res.body.paths) expect(Object.keys(entry).sort()).toEqual(CATALOG_KEYS);
    // Filters and pagination apply to the catalog too.
    const filtered = await listPaths(analyticsKey.token, "?status=draft&limit=1");
    expect(filtered.body.paths).toEqual([{ path_uuid: draft.path_uuid, name: "Draft path", status: "draft", published_at: null }]);
  });

  it("gives the full records to a key with paths, with paths and analytics, and with *", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token, { steps: [QUESTION_STEP] });
    for (const scopes of [["paths"], ["paths", "analytics"], ["analytics", "paths"], ["*"]]) {
      const key = await createKey(agencyUuid, { scopes });
      const res = await listPaths(key.token);
      expect(res.status, scopes.join()).toBe(200);
      expect(res.body.paths, scopes.join()).toEqual([path]);
    }
  });

  it("never lists another agency's paths", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createPath(a.token);
    expect((await listPaths(b.token)).body).toEqual({ success: true, paths: [], pagination: { page: 1, limit: 20, total: 0, next_cursor: null } });
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await listPaths(token, "?status=live"), 400, "status must be one of: draft, published, archived", "validation_error");
    expectError(await listPaths(token, "?limit=101"), 400, "limit must be a whole number from 1 to 100", "validation_error");
    expectError(await listPaths(token, "?page=0"), 400, "page must be a whole number from 1 to 1000000", "validation_error");
  });

  it("requires the paths or analytics scope", async () => {
    const { agencyUuid } = await setupAgency();
    await expectScopeRequired(agencyUuid, "GET", "/paths", "paths");
  });
});

describe("POST /paths", () => {
  it("creates a draft at version 1 and reads it back", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/paths", {
      token,
      body: { name: "  Seller funnel ", description: "For sellers", steps: [CONTENT_STEP, QUESTION_STEP, FORM_STEP] },
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const path = res.body.path;
    expect(Object.keys(path).sort()).toEqual(PATH_KEYS);
    expect(path).toEqual({
      path_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Seller funnel",
      description: "For sellers",
      status: "draft",
      steps: [STORED_CONTENT, STORED_QUESTION, STORED_FORM],
      version: 1,
      published_version: null,
      published_at: null,
      archived_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: path.created_at,
    });
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(path);
  });

  it("creates a path from a name alone, with no steps and no description", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { name: "Bare", description: "" });
    expect(path).toMatchObject({ name: "Bare", description: null, steps: [], version: 1, status: "draft" });
  });

  it("normalises steps: trims text, defaults a form field's required to false", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, {
      steps: [
        { key: "q1", type: "question", title: " Pick ", description: " Why ", options: [" a ", "b"] },
        { key: "f1", type: "form", title: "Form", fields: [{ key: "phone", label: "Phone" }] },
        { key: "b1", type: "booking", title: "Book", description: null },
      ],
    });
    expect(path.steps).toEqual([
      { key: "q1", type: "question", title: "Pick", description: "Why", options: ["a", "b"] },
      { key: "f1", type: "form", title: "Form", description: null, fields: [{ key: "phone", label: "Phone", required: false }] },
      { key: "b1", type: "booking", title: "Book", description: null },
    ]);
  });

  it.each([
    ["no name", { steps: [] }, "name is required"],
    ["a blank name", { name: "   " }, "name must be 1 to 200 characters"],
    ["a 201-character name", { name: "n".repeat(201) }, "name must be 1 to 200 characters"],
    ["a 2001-character description", { name: "P", description: "d".repeat(2001) }, "description must be at most 2000 characters"],
    ["steps that are not an array", { name: "P", steps: "intro" }, "steps must be an array of step objects"],
    ["51 steps", { name: "P", steps: Array.from({ length: 51 }, (_, i) => ({ ...CONTENT_STEP, key: `s${i}` })) }, "steps may contain at most 50 steps"],
    ["two steps with one key", { name: "P", steps: [CONTENT_STEP, { ...QUESTION_STEP, key: "intro" }] }, "steps must have unique keys; intro is used more than once"],
    ["a step without a key", { name: "P", steps: [{ type: "content", title: "Hi" }] }, "steps.0.key is required"],
    [
      "an upper-case step key",
      { name: "P", steps: [{ ...CONTENT_STEP, key: "Intro" }] },
      "steps.0.key: must be 1 to 64 lowercase letters, digits, underscores or hyphens, starting with a letter or digit",
    ],
    ["an unknown step type", { name: "P", steps: [CONTENT_STEP, { ...CONTENT_STEP, key: "x", type: "video" }] }, "steps.1.type: must be one of: question, form, booking, content"],
    ["a blank step title", { name: "P", steps: [{ ...CONTENT_STEP, title: " " }] }, "steps.0.title: must be 1 to 200 characters"],
    ["a question without options", { name: "P", steps: [{ key: "q", type: "question", title: "Q" }] }, "steps.0.options: required for a question step"],
    ["a question with one option", { name: "P", steps: [{ ...QUESTION_STEP, options: ["Only"] }] }, "steps.0.options: must hold 2 to 20 distinct answers, each 1 to 100 characters"],
    ["a question with repeated options", { name: "P", steps: [{ ...QUESTION_STEP, options: ["A", "A"] }] }, "steps.0.options: must hold 2 to 20 distinct answers, each 1 to 100 characters"],
    ["options on a content step", { name: "P", steps: [{ ...CONTENT_STEP, options: ["a", "b"] }] }, "steps.0.options: only allowed on a question step"],
    ["a form without fields", { name: "P", steps: [{ key: "f", type: "form", title: "F" }] }, "steps.0.fields: required for a form step"],
    ["a form with repeated field keys", { name: "P", steps: [{ ...FORM_STEP, fields: [{ key: "e", label: "E" }, { key: "e", label: "E2" }] }] }, "steps.0.fields: must hold 1 to 30 inputs with distinct keys"],
    ["fields on a booking step", { name: "P", steps: [{ key: "b", type: "booking", title: "B", fields: [{ key: "e", label: "E" }] }] }, "steps.0.fields: only allowed on a form step"],
    ["an unknown step property", { name: "P", steps: [{ ...CONTENT_STEP, video_url: "x" }] }, "Unknown field: video_url"],
    ["an unknown body field", { name: "P", status: "published" }, "Unknown field: status"],
  ])("rejects %s with 400 and creates nothing", async (_name, body, message) => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/paths", { token, body }), 400, message, "validation_error");
    expect((await listPaths(token)).body.pagination.total).toBe(0);
  });

  it("requires the paths scope, even for a key with analytics", async () => {
    const { agencyUuid, token } = await setupAgency();
    const analyticsKey = await createKey(agencyUuid, { scopes: ["analytics"] });
    expectError(await api("POST", "/paths", { token: analyticsKey.token, body: { name: "P" } }), 403, "Token missing required scope: paths", "insufficient_scope");
    expect((await listPaths(token)).body.pagination.total).toBe(0);
  });
});

describe("GET /paths/{path_uuid}", () => {
  it("returns the path, and an archived one with its status", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const res = await getPath(token, path.path_uuid.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, path });
    const archived = await archivePath(token, path.path_uuid);
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(archived);
  });

  it("answers 404 for a random uuid and another agency's path", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token);
    expectError(await getPath(a.token, RANDOM_UUID), 404, "Path not found", "not_found");
    expectError(await getPath(b.token, path.path_uuid), 404, "Path not found", "not_found");
  });

  it("rejects a malformed path_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await getPath(token, "nope"), 400, "path_uuid must be a UUID", "validation_error");
  });

  it("requires the paths scope; analytics alone is not enough", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token);
    const analyticsKey = await createKey(agencyUuid, { scopes: ["analytics"] });
    expectError(await getPath(analyticsKey.token, path.path_uuid), 403, "Token missing required scope: paths", "insufficient_scope");
  });
});

describe("PATCH /paths/{path_uuid}", () => {
  it("edits the draft and adds 1 to version on every change", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { name: "Old", description: "Old copy", steps: [CONTENT_STEP] });

    const renamed = await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: "New" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      success: true,
      path: { ...path, name: "New", version: 2, updated_at: expect.stringMatching(ISO) },
    });

    const restepped = await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { steps: [QUESTION_STEP, FORM_STEP], description: null } });
    expect(restepped.body.path).toMatchObject({ name: "New", description: null, steps: [STORED_QUESTION, STORED_FORM], version: 3 });
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(restepped.body.path);
  });

  it("answers an empty patch with the path unchanged, version kept", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    const res = await api("PATCH", `/paths/${path.path_uuid}`, { token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.path).toEqual(path);
  });

  it("keeps a published path live at its published version while the draft moves on", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const published = await publishPath(token, path.path_uuid);
    const res = await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { steps: [CONTENT_STEP, QUESTION_STEP] } });
    expect(res.body.path).toMatchObject({
      status: "published",
      version: 2,
      published_version: 1,
      published_at: published.published_at,
      steps: [STORED_CONTENT, STORED_QUESTION],
    });
    // The live version is still the one published.
    const versions = await api("GET", `/paths/${path.path_uuid}/versions`, { token });
    expect(versions.body.versions.map((v: any) => [v.version, v.steps])).toEqual([[1, [STORED_CONTENT]]]);
  });

  it("gives each of several concurrent edits its own version", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    const results = await Promise.all(
      [1, 2, 3].map((i) => api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: `Name ${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => r.body.path.version).sort()).toEqual([2, 3, 4]);
    expect((await getPath(token, path.path_uuid)).body.path.version).toBe(4);
  });

  it.each([
    ["a blank name", { name: "" }, "name must be 1 to 200 characters"],
    ["a null name", { name: null }, /name/],
    ["duplicate step keys", { steps: [CONTENT_STEP, CONTENT_STEP] }, "steps must have unique keys; intro is used more than once"],
    ["a question without options", { steps: [{ key: "q", type: "question", title: "Q" }] }, "steps.0.options: required for a question step"],
    ["a status", { status: "archived" }, "Unknown field: status"],
    ["a version", { version: 9 }, "Unknown field: version"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    expectError(await api("PATCH", `/paths/${path.path_uuid}`, { token, body }), 400, message, "validation_error");
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(path);
  });

  it("answers 409 for an archived path", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    const archived = await archivePath(token, path.path_uuid);
    expectError(
      await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: "Back" } }),
      409,
      "Path is archived and can no longer be changed",
      "conflict",
    );
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(archived);
  });

  it("answers 404 for a random uuid and another agency's path, changing nothing", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token);
    expectError(await api("PATCH", `/paths/${RANDOM_UUID}`, { token: a.token, body: { name: "X" } }), 404, "Path not found", "not_found");
    expectError(await api("PATCH", `/paths/${path.path_uuid}`, { token: b.token, body: { name: "Stolen" } }), 404, "Path not found", "not_found");
    expect((await getPath(a.token, path.path_uuid)).body.path).toEqual(path);
  });

  it("requires the paths scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token);
    await expectScopeRequired(agencyUuid, "PATCH", `/paths/${path.path_uuid}`, "paths", { body: { name: "X" } });
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(path);
  });
});

describe("DELETE /paths/{path_uuid}", () => {
  it("archives the path: status archived, archived_at set, still readable, gone from the default list", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const published = await publishPath(token, path.path_uuid);
    const res = await api("DELETE", `/paths/${path.path_uuid}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      path: { ...published, status: "archived", archived_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) },
    });
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(res.body.path);
    expect((await listPaths(token)).body.pagination.total).toBe(0);
    expect(uuidsOf(await listPaths(token, "?status=archived"))).toEqual([path.path_uuid]);
    // History stays.
    expect((await api("GET", `/paths/${path.path_uuid}/versions`, { token })).body.pagination.total).toBe(1);
  });

  it("answers 409 when archiving an archived path again", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    await archivePath(token, path.path_uuid);
    expectError(await api("DELETE", `/paths/${path.path_uuid}`, { token }), 409, "Path is already archived", "conflict");
  });

  it("answers 404 for a random uuid and another agency's path, leaving it live", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token);
    expectError(await api("DELETE", `/paths/${RANDOM_UUID}`, { token: a.token }), 404, "Path not found", "not_found");
    expectError(await api("DELETE", `/paths/${path.path_uuid}`, { token: b.token }), 404, "Path not found", "not_found");
    expect((await getPath(a.token, path.path_uuid)).body.path).toEqual(path);
  });

  it("rejects a malformed path_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("DELETE", "/paths/42", { token }), 400, "path_uuid must be a UUID", "validation_error");
  });

  it("requires the paths scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token);
    await expectScopeRequired(agencyUuid, "DELETE", `/paths/${path.path_uuid}`, "paths");
    expect((await getPath(token, path.path_uuid)).body.path.status).toBe("draft");
  });
});

describe("POST /paths/{path_uuid}/publish", () => {
  it("publishes the draft: status, published_version and a version in the history", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { name: "Funnel", description: "v1 copy", steps: [CONTENT_STEP] });
    const res = await api("POST", `/paths/${path.path_uuid}/publish`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      path: {
        ...path,
        status: "published",
        published_version: 1,
        published_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(res.body.path);
    const history = await api("GET", `/paths/${path.path_uuid}/versions`, { token });
    expect(history.body.versions).toEqual([
      { path_uuid: path.path_uuid, version: 1, name: "Funnel", description: "v1 copy", steps: [STORED_CONTENT], published_at: res.body.path.published_at },
    ]);
  });

  it("publishes each changed draft as a new version, keeping every earlier one", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { name: "v1", steps: [CONTENT_STEP] });
    const first = await publishPath(token, path.path_uuid);
    await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: "v2", steps: [CONTENT_STEP, QUESTION_STEP] } });
    await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: "v3" } });
    const second = await publishPath(token, path.path_uuid);
    expect(second).toMatchObject({ status: "published", version: 3, published_version: 3, name: "v3" });
    expect(second.published_at >= first.published_at).toBe(true);

    const history = await api("GET", `/paths/${path.path_uuid}/versions`, { token });
    expect(history.status).toBe(200);
    expect(history.body.versions.map((v: any) => [v.version, v.name, v.steps])).toEqual([
      [3, "v3", [STORED_CONTENT, STORED_QUESTION]],
      [1, "v1", [STORED_CONTENT]],
    ]);
    expect(history.body.versions[0].published_at).toBe(second.published_at);
    expect(history.body.versions[1].published_at).toBe(first.published_at);
  });

  it("answers 409 when the live version already is the draft", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const published = await publishPath(token, path.path_uuid);
    expectError(
      await api("POST", `/paths/${path.path_uuid}/publish`, { token }),
      409,
      "Version 1 of this path is already published; change the draft first",
      "conflict",
    );
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(published);
    expect((await api("GET", `/paths/${path.path_uuid}/versions`, { token })).body.pagination.total).toBe(1);
  });

  it("lets exactly one of two concurrent publishes of one draft win", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const [one, two] = await Promise.all([1, 2].map(() => api("POST", `/paths/${path.path_uuid}/publish`, { token })));
    expect([one!.status, two!.status].sort()).toEqual([200, 409]);
    expect((await api("GET", `/paths/${path.path_uuid}/versions`, { token })).body.pagination.total).toBe(1);
  });

  it("rejects a draft without steps with 400", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    expectError(await api("POST", `/paths/${path.path_uuid}/publish`, { token }), 400, "A path needs at least one step before it can be published", "validation_error");
    expect((await getPath(token, path.path_uuid)).body.path).toEqual(path);
  });

  it("answers 409 for an archived path", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    await archivePath(token, path.path_uuid);
    expectError(await api("POST", `/paths/${path.path_uuid}/publish`, { token }), 409, "Path is archived and can no longer be changed", "conflict");
    expect((await api("GET", `/paths/${path.path_uuid}/versions`, { token })).body.versions).toEqual([]);
  });

  it("answers 404 for a random uuid and another agency's path, publishing nothing", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token, { steps: [CONTENT_STEP] });
    expectError(await api("POST", `/paths/${RANDOM_UUID}/publish`, { token: a.token }), 404, "Path not found", "not_found");
    expectError(await api("POST", `/paths/${path.path_uuid}/publish`, { token: b.token }), 404, "Path not found", "not_found");
    expect((await getPath(a.token, path.path_uuid)).body.path).toEqual(path);
    expect((await api("GET", `/paths/${path.path_uuid}/versions`, { token: a.token })).body.versions).toEqual([]);
  });

  it("rejects a malformed path_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/paths/abc/publish", { token }), 400, "path_uuid must be a UUID", "validation_error");
  });

  it("requires the paths scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    await expectScopeRequired(agencyUuid, "POST", `/paths/${path.path_uuid}/publish`, "paths");
    expect((await getPath(token, path.path_uuid)).body.path.status).toBe("draft");
  });
});

describe("GET /paths/{path_uuid}/versions", () => {
  it("is empty for a path never published", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const res = await api("GET", `/paths/${path.path_uuid}/versions`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, versions: [], pagination: { page: 1, limit: 20, total: 0, next_cursor: null } });
  });

  it("pages through the history newest first with exact fields", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { name: "r1", steps: [CONTENT_STEP] });
    for (let i = 2; i <= 4; i++) {
      await publishPath(token, path.path_uuid);
      await api("PATCH", `/paths/${path.path_uuid}`, { token, body: { name: `r${i}` } });
    }
    // Published revisions 1, 2 and 3; the draft is at 4.
    const page1 = await api("GET", `/paths/${path.path_uuid}/versions?limit=2`, { token });
    expect(page1.body.versions.map((v: any) => [v.version, v.name])).toEqual([
      [3, "r3"],
      [2, "r2"],
    ]);
    expect(Object.keys(page1.body.versions[0]).sort()).toEqual(VERSION_KEYS);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, next_cursor: expect.any(String) });
    const page2 = await api("GET", `/paths/${path.path_uuid}/versions?limit=2&page=2`, { token });
    expect(page2.body.versions.map((v: any) => v.version)).toEqual([1]);
  });

  it("reads the path and its versions in one D1 round trip, archived paths included", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token, { name: "r1", steps: [CONTENT_STEP] });
    await publishPath(a.token, path.path_uuid);
    const live = await measured(`/paths/${path.path_uuid.toUpperCase()}/versions`, a.token);
    expect(live.status).toBe(200);
    expect(live.roundTrips).toBe(1);
    expect(live.body.versions.map((v: any) => [v.path_uuid, v.version])).toEqual([[path.path_uuid, 1]]);
    expect(live.body.pagination.total).toBe(1);
    await archivePath(a.token, path.path_uuid);
    const archived = await measured(`/paths/${path.path_uuid}/versions`, a.token);
    expect(archived.status).toBe(200);
    expect(archived.roundTrips).toBe(1);
    expect(archived.body.versions).toEqual(live.body.versions);
    for (const [uuid, token] of [
      [RANDOM_UUID, a.token],
      [path.path_uuid, b.token],
    ] as const) {
      const missing = await measured(`/paths/${uuid}/versions`, token);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe("Path not found");
      expect(missing.roundTrips).toBe(1);
    }
  });

  it("answers 404 for a random uuid and another agency's path", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const path = await createPath(a.token, { steps: [CONTENT_STEP] });
    await publishPath(a.token, path.path_uuid);
    expectError(await api("GET", `/paths/${RANDOM_UUID}/versions`, { token: a.token }), 404, "Path not found", "not_found");
    expectError(await api("GET", `/paths/${path.path_uuid}/versions`, { token: b.token }), 404, "Path not found", "not_found");
  });

  it("rejects invalid parameters", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token);
    expectError(await api("GET", "/paths/x/versions", { token }), 400, "path_uuid must be a UUID", "validation_error");
    expectError(await api("GET", `/paths/${path.path_uuid}/versions?limit=0`, { token }), 400, "limit must be a whole number from 1 to 100", "validation_error");
  });
});

describe("path_uuid checks elsewhere use real paths", () => {
  it("accepts a draft or published path of the agency on contacts", async () => {
    const { token } = await setupAgency();
    const draft = await createPath(token);
    const live = await createPath(token, { steps: [CONTENT_STEP] });
    await publishPath(token, live.path_uuid);
    expect((await createContact(token, { email: "a@example.com", path_uuid: draft.path_uuid })).path_uuid).toBe(draft.path_uuid);
    expect((await createContact(token, { email: "b@example.com", path_uuid: live.path_uuid })).path_uuid).toBe(live.path_uuid);
  });

  it("treats an archived (deleted) path as unknown for contacts and path events", async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token);
    const contact = await createContact(token, { email: "before@example.com", path_uuid: path.path_uuid });
    await archivePath(token, path.path_uuid);

    const create = await api("POST", "/contacts", { token, body: { first_name: "A", last_name: "B", path_uuid: path.path_uuid } });
    expectError(create, 400, "Unknown path_uuid", "validation_error");
    const other = await createContact(token, { email: "other@example.com" });
    const patch = await api("PATCH", `/contacts/${other.contact_uuid}`, { token, body: { path_uuid: path.path_uuid } });
    expectError(patch, 400, "Unknown path_uuid", "validation_error");
    expect((await api("GET", `/contacts/${other.contact_uuid}`, { token })).body.contact.path_uuid).toBeNull();
    // A contact that came through the path before keeps it.
    expect((await api("GET", `/contacts/${contact.contact_uuid}`, { token })).body.contact.path_uuid).toBe(path.path_uuid);

    const event = await admin("POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: path.path_uuid, type: "view" });
    expectError(event, 400, "Unknown path_uuid", "validation_error");
  });

  it("accepts a live path on bookings and treats an archived one as unknown", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const live = await createPath(token);
    const gone = await createPath(token);
    await archivePath(token, gone.path_uuid);
    const [first, second] = await freeStarts(token, nextWeekday(2));
    const rejected = await api("POST", "/calendar/bookings", { token, body: bookingBody(first!, { path_uuid: gone.path_uuid }) });
    expectError(rejected, 400, "Unknown path_uuid", "validation_error");
    expect((await book(token, second!, { path_uuid: live.path_uuid })).path_uuid).toBe(live.path_uuid);
  });

  it("rejects another agency's path on contacts and path events", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const theirs = await createPath(b.token);
    expectError(
      await api("POST", "/contacts", { token: a.token, body: { first_name: "A", last_name: "B", path_uuid: theirs.path_uuid } }),
      400,
      "Unknown path_uuid",
    );
    // ...while their own agency may use it.
    await pathEvent(b.agencyUuid, { path_uuid: theirs.path_uuid, type: "view" });
  });
});

import { describe, expect, it } from "vitest";
import { admin, api, expectError, type ApiResponse } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { exampleBody, isPublic, operationsOf, type Json } from "../helpers/openapi-doc";
import { populate } from "../helpers/populate";
import { dbOf } from "../helpers/shards";

/** Reads before writes, deletes last, so the records the walk needs are still there. */
const METHOD_ORDER = ["GET", "PUT", "PATCH", "POST", "DELETE"];
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";

/** Secret values stored for the agency: distinctive strings that must never come back. */
async function storeSecrets(agencyUuid: string) {
  const values = {
    "google_calendar.refresh_token": `1//refresh-${crypto.randomUUID()}`,
    "google_calendar.access_token": `ya29.access-${crypto.randomUUID()}`,
    "vapi.api_key": `vapi-key-${crypto.randomUUID()}`,
    "twilio.auth_token": `twilio-${crypto.randomUUID()}`,
  };
  const now = new Date().toISOString();
  for (const [name, value] of Object.entries(values)) {
    await (await dbOf(agencyUuid)).prepare("INSERT INTO agency_secrets (agency_id, name, value, updated_at) VALUES (?, ?, ?, ?)")
      .bind(agencyUuid, name, value, now)
      .run();
  }
  return Object.values(values);
}

function expectNoSecret(res: ApiResponse, secrets: string[], what: string) {
  const text = `${typeof res.body === "string" ? res.body : JSON.stringify(res.body)}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}`;
  for (const secret of secrets) expect(text.includes(secret), `${what} leaked a secret`).toBe(false);
}

describe("agency secrets never appear in any response", () => {
  it("walks every operation of the document with real records and finds no secret value in any body or header", async () => {
    // A real record for every path parameter of the document (populate() makes one of each kind).
    const { owner, idFor } = await populate();
    const { agencyUuid, token } = owner;
    const secrets = await storeSecrets(agencyUuid);
    const stored = await (await dbOf(agencyUuid)).prepare("SELECT value FROM agency_secrets WHERE agency_id = ?").bind(agencyUuid).all<{ value: string }>();
    expect(stored.results.map((r) => r.value).sort()).toEqual([...secrets].sort());

    const doc = (await api("GET", "/openapi.json")).body as Json;
    const operations = operationsOf(doc).sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
    expect(operations.length).toBeGreaterThanOrEqual(12);

    const called: string[] = [];
    const succeeded: string[] = [];
    for (const { method, path, op } of operations) {
      const parameters = (op.parameters ?? []) as Json[];
      let url = path;
      for (const p of parameters.filter((p) => p.in === "path")) {
        const id = idFor(path, p.name);
        expect(id, `no record for {${p.name}} in ${method} ${path}: add one to populate()`).toBeTruthy();
        url = url.replace(`{${p.name}}`, id!);
      }
      const query = new URLSearchParams();
      for (const p of parameters.filter((p) => p.in === "query" && p.required)) {
        query.set(p.name, String(p.example ?? p.schema?.example ?? ""));
      }
      if (query.size > 0) url += `?${query}`;
      const bodies = op.requestBody ? [exampleBody(doc, op), {}] : [undefined];
      for (const body of bodies) {
        const res = await api(method, url, { token: isPublic(op) ? null : token, body });
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
        expectNoSecret(res, secrets, `${method} ${url}`);
        called.push(`${method} ${path}`);
        if (res.status < 300) succeeded.push(`${method} ${path}`);
      }
    }

    // The walk reached the routes that could plausibly leak settings-like data, and they answered.
    for (const key of ["GET /settings", "PATCH /settings", "GET /users", "GET /lead-orders", "GET /contacts"]) {
      expect(called).toContain(key);
      expect(succeeded).toContain(key);
    }
    // Reads run first, so every record read answers 200: the walk used real records, not 404s.
    for (const key of ["GET /contacts/{contact_uuid}", "GET /appointments/{appointment_uuid}", "GET /voice-ai/calls/{call_uuid}", "GET /lead-orders/{order_uuid}"]) {
      expect(succeeded, key).toContain(key);
    }
  });
});

describe("POST /admin/v1/agencies/{agency_uuid}/secrets (operator)", () => {
  it("stores a secret without ever echoing its value, and replaces it on a second call", async () => {
    const { agencyUuid, token } = await setupAgency();
    const value = `oauth-${crypto.randomUUID()}`;
    const created = await admin("POST", `/agencies/${agencyUuid}/secrets`, { name: "google_calendar.refresh_token", value });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, secret: { name: "google_calendar.refresh_token", updated_at: expect.any(String) } });
    expectNoSecret(created, [value], "creating a secret");

    const replacement = `oauth-${crypto.randomUUID()}`;
    const replaced = await admin("POST", `/agencies/${agencyUuid}/secrets`, { name: "google_calendar.refresh_token", value: replacement });
    expect(replaced.status).toBe(200);
    expectNoSecret(replaced, [value, replacement], "replacing a secret");

    const rows = await (await dbOf(agencyUuid)).prepare("SELECT name, value FROM agency_secrets WHERE agency_id = ?").bind(agencyUuid).all();
    expect(rows.results).toEqual([{ name: "google_calendar.refresh_token", value: replacement }]);

    for (const path of ["/settings", "/users", "/lead-orders"]) expectNoSecret(await api("GET", path, { token }), [value, replacement], path);
  });

  it.each([
    ["an invalid name", { name: "Bad Name", value: "x" }, /name must start with a lowercase letter/],
    ["an empty value", { name: "vapi.api_key", value: "" }, "value must be 1 to 10000 characters"],
    ["a missing value", { name: "vapi.api_key" }, "value is required"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { agencyUuid } = await setupAgency();
    expectError(await admin("POST", `/agencies/${agencyUuid}/secrets`, body), 400, message, "validation_error");
  });

  it("answers 404 for an unknown agency", async () => {
    expectError(await admin("POST", `/agencies/${RANDOM_UUID}/secrets`, { name: "vapi.api_key", value: "x" }), 404, "Agency not found");
  });
});

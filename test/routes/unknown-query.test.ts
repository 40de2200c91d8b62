import { beforeAll, describe, expect, it } from "vitest";
import { buildPartnerApi } from "@/app";
import { api, call, expectError, uniqueIp, type ApiResponse } from "../helpers/http";
import { setupAgency, type TestAgency } from "../helpers/factories";
import { isPublic, operationsOf, type Json } from "../helpers/openapi-doc";

/**
 * A query parameter a route does not name is a 400 `validation_error` naming it, on every
 * Partner API route (its schema made strict by partnerRoute, src/lib/strict-query.ts), with
 * or without a query schema of its own; docs/decisions/response-conventions.md.
 */

const doc = buildPartnerApi().openApiDocument() as Json;
const operations = operationsOf(doc);

/** A new random UUID for each path parameter. */
const pathOf = (path: string) => path.replace(/\{[^}]+\}/g, () => crypto.randomUUID());

function expectUnknownQuery(res: ApiResponse<any>, names: string[], message: string) {
  expectError(res, 400, message, "validation_error");
  expect(res.body.details.slice(0, names.length)).toEqual(names.map((field) => ({ field, message: `Unknown query parameter: ${field}` })));
}

let agency: TestAgency;
beforeAll(async () => {
  agency = await setupAgency("Unknown query parameters");
});

describe("every operation of the document", () => {
  it("has operations with and without query parameters", () => {
    const takesQuery = (op: Json) => (op.parameters ?? []).some((p: Json) => p.in === "query");
    expect(operations.filter((o) => takesQuery(o.op)).length).toBeGreaterThanOrEqual(15);
    expect(operations.filter((o) => !takesQuery(o.op)).length).toBeGreaterThanOrEqual(40);
  });

  for (const o of operations) {
    it(`${o.key}: 400 naming an unknown query parameter`, async () => {
      const json = o.op.requestBody?.content?.["application/json"] !== undefined;
      const res = await api(o.method, `${pathOf(o.path)}?zz_unknown=1`, {
        ...(isPublic(o.op) ? { ip: uniqueIp() } : { token: agency.token }),
        ...(json ? { body: {} } : {}),
      });
      expectUnknownQuery(res, ["zz_unknown"], "Unknown query parameter: zz_unknown");
    });
  }

  it("documents the refusal in every operation's 400", () => {
    for (const o of operations) expect(o.op.responses["400"]?.description, o.key).toContain("unknown query parameter");
  });
});

describe("the refusal", () => {
  it("names a typo of a list's filter, with nothing listed", async () => {
    const res = await api("GET", "/contacts?tgas=buyer", { token: agency.token });
    expectUnknownQuery(res, ["tgas"], "Unknown query parameter: tgas");
    expect(res.body.details).toHaveLength(1);
  });

  it("names a parameter sent to a route that takes no query", async () => {
    const res = await api("GET", `/contacts/${crypto.randomUUID()}?expand=notes`, { token: agency.token });
    expectUnknownQuery(res, ["expand"], "Unknown query parameter: expand");
  });

  it("names the unknown parameter first, before the route's own problems", async () => {
    // Availability requires from and to: the misspelled name explains the missing one.
    const res = await api("GET", "/calendar/availability?form=2026-12-01&to=2026-12-02", { token: agency.token });
    expectUnknownQuery(res, ["form"], "Unknown query parameter: form");
    expect(res.body.details).toEqual([
      { field: "form", message: "Unknown query parameter: form" },
      { field: "from", message: "Invalid date range. Use YYYY-MM-DD for from and to." },
    ]);
  });

  it("names several in the order sent", async () => {
    const res = await api("GET", "/contacts?limit=5&srot=name&Tag=vip", { token: agency.token });
    expectUnknownQuery(res, ["srot", "Tag"], "Unknown query parameters: srot, Tag");
  });

  it("refuses a write whose body is valid, writing nothing", async () => {
    const fresh = await setupAgency("Unknown query parameter on a write");
    const body = { first_name: "Ada", last_name: "Lovelace", phone: "+14155550123" };
    const refused = await api("POST", "/contacts?dry_run=true", { token: fresh.token, body });
    expectUnknownQuery(refused, ["dry_run"], "Unknown query parameter: dry_run");
    expect((await api("GET", "/contacts", { token: fresh.token })).body.contacts).toEqual([]);
    // The same request without it is served.
    expect((await api("POST", "/contacts", { token: fresh.token, body })).status).toBe(201);
  });

  it("is the query's answer before the body's", async () => {
    const res = await api("POST", "/contacts?dry_run=true", { token: agency.token, body: { nickname: "x" } });
    expectUnknownQuery(res, ["dry_run"], "Unknown query parameter: dry_run");
  });

  it("names at most 20 and stays small whatever was sent", async () => {
    const long = "x".repeat(2_000);
    const names = Array.from({ length: 300 }, (_, i) => `${long}${i}`);
    const res = await api("GET", `/contacts?${names.map((n) => `${n}=1`).join("&")}`, { token: agency.token });
    expect(res.status).toBe(400);
    const shown = `${"x".repeat(32)}…`;
    expect(res.body.error).toBe(`Unknown query parameters: ${Array.from({ length: 20 }, () => shown).join(", ")} and 280 more`);
    expect(res.body.details).toHaveLength(20);
    expect(res.body.details[0]).toEqual({ field: shown, message: `Unknown query parameter: ${shown}` });
    expect(new TextEncoder().encode(JSON.stringify(res.body)).length).toBeLessThan(4096);
  });

  it("counts a name's characters as the answer's JSON carries them", async () => {
    const res = await api("GET", `/contacts?${encodeURIComponent("\u0001".repeat(40))}=1`, { token: agency.token });
    // \u0001 takes 6 bytes of JSON: 5 of them fit in 32.
    expectUnknownQuery(res, [`${"\u0001".repeat(5)}…`], `Unknown query parameter: ${"\u0001".repeat(5)}…`);
  });

  it("keeps repeated known parameters as they were: not unknown", async () => {
    const res = await api("GET", "/contacts?tag=a&tag=b", { token: agency.token });
    expect(JSON.stringify(res.body)).not.toContain("Unknown query parameter");
  });

  it("lets every known parameter through", async () => {
    const res = await api("GET", "/contacts?limit=5&page=1&tag=vip&q=ada&source=Zillow&deleted=false", { token: agency.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("is answered after the key is checked: no token is still a 401", async () => {
    const res = await api("GET", "/contacts?tgas=buyer", { ip: uniqueIp() });
    expectError(res, 401, "Invalid or missing token", "invalid_token");
  });
});

describe("what is not an API route keeps ignoring a query", () => {
  // docs/decisions/response-conventions.md: pages, OAuth (RFC 6749 §3.1 and §3.2: unrecognized
  // parameters MUST be ignored), liveness, and the MCP endpoint take any query.
  for (const path of ["/api/v2/docs?utm_source=newsletter", "/health?probe=1", "/.well-known/oauth-authorization-server?x=1", "/.well-known/oauth-protected-resource?x=1"]) {
    it(`GET ${path}`, async () => {
      const res = await call("GET", path, { ip: uniqueIp() });
      expect(res.status).toBe(200);
    });
  }
});

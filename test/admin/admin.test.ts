import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import { admin, api, call, expectError, uniqueIp } from "../helpers/http";
import { createAgency, createKey, createMember, createPathRecord, setupAgency } from "../helpers/factories";
import { operationsOf } from "../helpers/openapi-doc";
import { dbOf } from "../helpers/shards";

const DAY = 86_400_000;
const UNKNOWN_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const renew = (access_token: string, rotate_key: string) =>
  api("POST", "/auth/token/renew", { body: { access_token, rotate_key }, ip: uniqueIp() });

// A cheap partner route per scope, used to watch a key's access change.
const listFields = (token: string) => api("GET", "/fields", { token });
const listContacts = (token: string) => api("GET", "/contacts", { token });

/** Every operator route, with a body that would pass validation, so only auth decides. */
function operatorRequests(agencyUuid: string, keyUuid: string, memberUuid = UNKNOWN_UUID, shard = "DB_EU", grantId = "AAAAAAAAAAAAAAAA"): [string, string, unknown?][] {
  return [
    ["GET", "/agencies"],
    ["POST", "/agencies", { name: "Acme", timezone: "America/New_York" }],
    ["GET", `/agencies/${agencyUuid}`],
    ["POST", `/agencies/${agencyUuid}/move`, { shard }],
    ["PUT", `/agencies/${agencyUuid}/sms-number`, { number: "+14155550100" }],
    ["GET", "/shards"],
    ["PUT", `/shards/${shard}`, { region: "eu", open: true }],
    ["PATCH", `/shards/${shard}`, { open: true }],
    ["GET", `/agencies/${agencyUuid}/keys`],
    ["POST", `/agencies/${agencyUuid}/keys`, { name: "k", scopes: ["contacts"] }],
    ["PATCH", `/keys/${keyUuid}`, { name: "renamed" }],
    ["POST", `/keys/${keyUuid}/revoke`],
    ["POST", `/keys/${keyUuid}/rotate-secrets`],
    ["POST", `/keys/${keyUuid}/regenerate-rotate-key`],
    ["GET", `/keys/${keyUuid}/security-events`],
    ["POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`],
    ["POST", `/agencies/${agencyUuid}/members`, { name: "Dana", email: "dana@example.com", role: "agent" }],
    ["POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: UNKNOWN_UUID, type: "view" }],
    ["POST", `/agencies/${agencyUuid}/voice-agents`, { name: "Ava", phone_numbers: ["+12125550100"] }],
    ["POST", `/agencies/${agencyUuid}/lead-orders`, { name: "Texas", daily_max: 5, states: ["TX"] }],
    ["POST", `/agencies/${agencyUuid}/booking-widgets`, { name: "Intro call", duration_minutes: 30 }],
    ["POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: UNKNOWN_UUID, channel: "sms", direction: "inbound", body: "Hi" }],
    ["POST", `/agencies/${agencyUuid}/wallet/credit`, { amount_cents: 5000 }],
    ["POST", `/agencies/${agencyUuid}/secrets`, { name: "vapi.api_key", value: "vapi-operator-auth-test" }],
    ["POST", `/members/${memberUuid}/dashboard-links`],
    ["GET", `/agencies/${agencyUuid}/grants`],
    ["PATCH", `/agencies/${agencyUuid}/grants/${grantId}`, { rate_limit_multiplier: 2 }],
    ["DELETE", `/agencies/${agencyUuid}/grants/${grantId}`],
    ["GET", "/directory/orphans"],
    ["POST", "/directory/orphans/purge", {}],
    ["GET", "/openapi.json"],
  ];
}

describe("operator API authentication", () => {
  it("lists every operation of the operator document among the routes checked below", async () => {
    const doc = await admin("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const documented = operationsOf(doc.body).map((o) => o.key);
    expect(documented.length).toBeGreaterThanOrEqual(18);
    const checked = new Set(operatorRequests("{agency_uuid}", "{key_uuid}", "{agent_uuid}", "{name}", "{grant_id}").map(([method, path]) => `${method} ${path}`));
    expect(documented.filter((key) => !checked.has(key)), "add these to operatorRequests()").toEqual([]);
  });

  it.each([
    ["unset", undefined],
    ["empty", ""],
  ])("answers 404 on every /admin path when ADMIN_TOKEN is %s, even to a bearer", async (_name, adminToken) => {
    const paths = [...operatorRequests(UNKNOWN_UUID, UNKNOWN_UUID), ["GET", "/nope"] as [string, string]];
    for (const [method, path, body] of paths) {
      for (const authorization of [undefined, "Bearer test-admin-token", "Bearer "]) {
        const headers: Record<string, string> = {};
        if (authorization) headers.Authorization = authorization;
        if (body !== undefined) headers["Content-Type"] = "application/json";
        const ctx = createExecutionContext();
        const res = await app.fetch(
          new Request(`https://partner.test/admin/v1${path}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
          { ...env, ADMIN_TOKEN: adminToken },
          ctx,
        );
        await waitOnExecutionContext(ctx);
        expect(res.status, `${method} ${path} (${authorization ?? "no header"})`).toBe(404);
        expect(await res.json()).toMatchObject({ success: false, code: "not_found" });
      }
    }
  });

  it("rejects a missing or wrong operator token with 401 on every operator route", async () => {
    const { agencyUuid, keyUuid, token } = await setupAgency();
    for (const [method, path, body] of operatorRequests(agencyUuid, keyUuid)) {
      for (const adminToken of [null, "wrong-admin-token", "test-admin-token-but-longer", "TEST-ADMIN-TOKEN"]) {
        // A fresh IP each time: more than 10 failures from one IP would be refused 429.
        const res = await call(method, `/admin/v1${path}`, { token: adminToken, body, ip: uniqueIp() });
        expectError(res, 401, "Invalid or missing token", "invalid_token");
      }
    }
    // Nothing above reached a handler: the key was neither revoked nor rotated.
    expect((await listFields(token)).status).toBe(200);
    const keys = await admin("GET", `/agencies/${agencyUuid}/keys`);
    expect(keys.body.keys).toHaveLength(1);
    const secrets = await (await dbOf(agencyUuid)).prepare("SELECT name FROM agency_secrets WHERE agency_id = ?").bind(agencyUuid).all();
    expect(secrets.results).toEqual([]);
  });

  it("does not accept a partner access token as the operator token", async () => {
    const { token } = await setupAgency();
    const res = await call("GET", "/admin/v1/agencies", { token, ip: uniqueIp() });
    expectError(res, 401, "Invalid or missing token", "invalid_token");
  });

  it("is not part of the Partner API document", async () => {
    const doc = await api("GET", "/openapi.json");
    expect(Object.keys(doc.body.paths).some((p) => p.includes("admin"))).toBe(false);
    const own = await admin("GET", "/openapi.json");
    expect(own.status).toBe(200);
    expect(Object.keys(own.body.paths)).toContain("/agencies/{agency_uuid}/keys");
  });
});

describe("agencies", () => {
  it("creates an agency and returns its public record", async () => {
    const res = await admin("POST", "/agencies", { name: "Acme Realty", timezone: "America/Chicago" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      agency: {
        agency_uuid: expect.stringMatching(UUID),
        name: "Acme Realty",
        timezone: "America/Chicago",
        shard: expect.stringMatching(/^DB(_EU)?$/),
        region: expect.stringMatching(/^(wnam|eu)$/),
        sms_number: null,
        created_at: expect.stringMatching(ISO_MS),
      },
    });
    const { agency } = res.body;
    expect(agency.region).toBe(agency.shard === "DB" ? "wnam" : "eu");
    expect((await admin("GET", `/agencies/${agency.agency_uuid}`)).body).toEqual({ success: true, agency, move: null });
  });

  it.each([
    ["an unknown time zone", { name: "Acme", timezone: "Mars/Olympus_Mons" }, /timezone/],
    ["an offset instead of a zone", { name: "Acme", timezone: "+02:00" }, /timezone/],
    ["a missing timezone", { name: "Acme" }, "timezone is required"],
    ["a blank name", { name: "   ", timezone: "America/New_York" }, /name/],
    ["an unknown field", { name: "Acme", timezone: "America/New_York", plan: "gold" }, /plan/],
  ])("rejects %s with 400", async (_name, body, message) => {
    expectError(await admin("POST", "/agencies", body), 400, message, "validation_error");
  });

  it("lists agencies, oldest first, including a new one", async () => {
    const first = await createAgency("Listed One");
    const second = await createAgency("Listed Two");
    const res = await admin("GET", "/agencies");
    expect(res.status).toBe(200);
    const ids = res.body.agencies.map((a: { agency_uuid: string }) => a.agency_uuid);
    expect(ids).toContain(first);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
  });
});

describe("keys", () => {
  it("creates a key with its scopes, a pa_ token, a par_ rotate key and a 30-day expiry", async () => {
    const agencyUuid = await createAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/keys`, { name: "CRM sync", scopes: ["contacts", "fields"] });
    expect(res.status).toBe(201);
    expect(res.body.access_token).toMatch(/^pa_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(res.body.access_token.slice(3, 35)).toBe(res.body.key.key_uuid.replaceAll("-", ""));
    expect(res.body.rotate_key).toMatch(/^par_[A-Za-z0-9_-]{43}$/);
    expect(res.body.key).toMatchObject({
      key_uuid: expect.stringMatching(UUID),
      agency_uuid: agencyUuid,
      name: "CRM sync",
      kind: "standard",
      scopes: ["contacts", "fields"],
      rate_limit_multiplier: 1,
      revoked_at: null,
    });
    const expiresIn = Date.parse(res.body.key.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(30 * DAY - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * DAY);
    expect((await listFields(res.body.access_token)).status).toBe(200);
  });

  it("honours an expires_at override and a rate-limit multiplier", async () => {
    const agencyUuid = await createAgency();
    const expiresAt = new Date(Date.now() + 7 * DAY).toISOString();
    const res = await admin("POST", `/agencies/${agencyUuid}/keys`, {
      name: "benchmark",
      scopes: ["*"],
      expires_at: expiresAt,
      rate_limit_multiplier: 2,
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatchObject({ expires_at: expiresAt, rate_limit_multiplier: 2 });
  });

  it("creates a non-expiring key only when its one scope is calendar", async () => {
    const agencyUuid = await createAgency();
    const calendar = await admin("POST", `/agencies/${agencyUuid}/keys`, { name: "voice", scopes: ["calendar"], expires: false });
    expect(calendar.status).toBe(201);
    expect(calendar.body.key.expires_at).toBeNull();
    for (const scopes of [["contacts"], ["calendar", "contacts"], ["*"]]) {
      const res = await admin("POST", `/agencies/${agencyUuid}/keys`, { name: "forever", scopes, expires: false });
      expectError(res, 400, "expires: false is only allowed for keys whose only scope is calendar", "validation_error");
    }
  });

  it.each([
    ["an unknown scope", { name: "k", scopes: ["contacts", "everything"] }, /scopes/],
    ["no scopes", { name: "k", scopes: [] }, /scopes/],
    ["a repeated scope", { name: "k", scopes: ["contacts", "contacts"] }, /scopes must not repeat/],
    ["a missing name", { scopes: ["contacts"] }, "name is required"],
    ["a zero multiplier", { name: "k", scopes: ["contacts"], rate_limit_multiplier: 0 }, /rate_limit_multiplier/],
  ])("rejects %s with 400", async (_name, body, message) => {
    const agencyUuid = await createAgency();
    expectError(await admin("POST", `/agencies/${agencyUuid}/keys`, body), 400, message, "validation_error");
  });

  it("answers 404 for keys of an unknown agency", async () => {
    expectError(await admin("POST", `/agencies/${UNKNOWN_UUID}/keys`, { name: "k", scopes: ["contacts"] }), 404, "Agency not found");
    expectError(await admin("GET", `/agencies/${UNKNOWN_UUID}/keys`), 404, "Agency not found");
  });

  it("answers 404 for an unknown key and 400 for a malformed key_uuid", async () => {
    for (const [method, suffix, body] of [
      ["PATCH", "", { name: "x" }],
      ["POST", "/revoke", undefined],
      ["POST", "/rotate-secrets", undefined],
      ["POST", "/regenerate-rotate-key", undefined],
      ["GET", "/security-events", undefined],
    ] as const) {
      expectError(await admin(method, `/keys/${UNKNOWN_UUID}${suffix}`, body), 404, "Key not found", "not_found");
      expectError(await admin(method, `/keys/not-a-uuid${suffix}`, body), 400, "key_uuid must be a UUID", "validation_error");
    }
  });

  it("lists an agency's keys without their secrets or hashes", async () => {
    const { agencyUuid, keyUuid, token, rotateKey } = await setupAgency();
    const other = await setupAgency();
    const res = await admin("GET", `/agencies/${agencyUuid}/keys`);
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { key_uuid: string }) => k.key_uuid)).toEqual([keyUuid]);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(token);
    expect(text).not.toContain(rotateKey);
    expect(text).not.toMatch(/hash/i);
    expect(text).not.toContain(other.keyUuid);
  });

  it("changes a key's access on the very next request when its scopes are edited", async () => {
    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["contacts"] });
    expect((await listContacts(token)).status).toBe(200);
    expectError(await listFields(token), 403, "Token missing required scope: fields", "insufficient_scope");

    const swapped = await admin("PATCH", `/keys/${keyUuid}`, { scopes: ["fields"] });
    expect(swapped.status).toBe(200);
    expect(swapped.body.key.scopes).toEqual(["fields"]);
    expect((await listFields(token)).status).toBe(200);
    expectError(await listContacts(token), 403, "Token missing required scope: contacts", "insufficient_scope");

    const widened = await admin("PATCH", `/keys/${keyUuid}`, { scopes: ["*"], name: "everything" });
    expect(widened.body.key).toMatchObject({ scopes: ["*"], name: "everything" });
    expect((await listContacts(token)).status).toBe(200);
    expect((await listFields(token)).status).toBe(200);
  });

  it("edits the name and multiplier without touching the scopes or secrets", async () => {
    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["fields"] });
    const res = await admin("PATCH", `/keys/${keyUuid}`, { name: "renamed", rate_limit_multiplier: 3 });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ name: "renamed", rate_limit_multiplier: 3, scopes: ["fields"] });
    expect((await listFields(token)).status).toBe(200);
    expectError(await admin("PATCH", `/keys/${keyUuid}`, { scopes: ["nope"] }), 400, /scopes/, "validation_error");
  });

  it("revokes a key: its token is 401 on the very next request and it cannot be rotated", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    expect((await listFields(token)).status).toBe(200);
    const res = await admin("POST", `/keys/${keyUuid}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body.key.revoked_at).toMatch(ISO_MS);
    expectError(await listFields(token), 401, "Invalid or missing token", "invalid_token");
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    expectError(await admin("POST", `/keys/${keyUuid}/rotate-secrets`), 400);
    expectError(await admin("POST", `/keys/${keyUuid}/regenerate-rotate-key`), 400);
  });

  it("refuses to edit a revoked key with the rotate refusals' 400, changing and recording nothing", async () => {
    const { agencyUuid, keyUuid } = await setupAgency();
    expect((await admin("POST", `/keys/${keyUuid}/revoke`)).status).toBe(200);
    const auditBefore = await (await dbOf(agencyUuid)).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE agency_id = ?").bind(agencyUuid).first<{ n: number }>();
    const before = (await admin("GET", `/agencies/${agencyUuid}/keys`)).body.keys;
    expectError(await admin("PATCH", `/keys/${keyUuid}`, { name: "revived", scopes: ["fields"] }), 400, "A revoked key cannot be changed", "validation_error");
    expect((await admin("GET", `/agencies/${agencyUuid}/keys`)).body.keys).toEqual(before);
    const auditAfter = await (await dbOf(agencyUuid)).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE agency_id = ?").bind(agencyUuid).first<{ n: number }>();
    expect(auditAfter).toEqual(auditBefore);
  });

  it("keeps the first revocation time when a key is revoked twice", async () => {
    const { keyUuid } = await setupAgency();
    const first = await admin("POST", `/keys/${keyUuid}/revoke`);
    const second = await admin("POST", `/keys/${keyUuid}/revoke`);
    expect(second.status).toBe(200);
    expect(second.body.key.revoked_at).toBe(first.body.key.revoked_at);
  });
});

describe("secret resets", () => {
  it("rotate-secrets: the old token and rotate key stop working, the new pair works and renews", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const res = await admin("POST", `/keys/${keyUuid}/rotate-secrets`);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^pa_/);
    expect(res.body.rotate_key).toMatch(/^par_/);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(30 * DAY - 60_000);

    expectError(await listFields(token), 401, "Invalid or missing token", "invalid_token");
    expect((await listFields(res.body.access_token)).status).toBe(200);
    expectError(await renew(res.body.access_token, rotateKey), 401, "Invalid access token or rotate key");
    const renewed = await renew(res.body.access_token, res.body.rotate_key);
    expect(renewed.status).toBe(200);
    expect((await listFields(renewed.body.access_token)).status).toBe(200);
  });

  it("rotate-secrets revives an expired key with a fresh 30-day token", async () => {
    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["fields"], expires_at: new Date(Date.now() - 1000).toISOString() });
    expectError(await listFields(token), 401, undefined, "token_expired");
    const res = await admin("POST", `/keys/${keyUuid}/rotate-secrets`);
    expect((await listFields(res.body.access_token)).status).toBe(200);
  });

  it("regenerate-rotate-key: the access token keeps working, only the new rotate key renews", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const res = await admin("POST", `/keys/${keyUuid}/regenerate-rotate-key`);
    expect(res.status).toBe(200);
    expect(res.body.rotate_key).toMatch(/^par_/);
    expect(res.body.rotate_key).not.toBe(rotateKey);

    expect((await listFields(token)).status).toBe(200);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key", "invalid_token");
    const renewed = await renew(token, res.body.rotate_key);
    expect(renewed.status).toBe(200);
    expectError(await listFields(token), 401, "Invalid or missing token");
  });

  it("records a replayed, already-burned rotate key as a security event of its key", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const other = await setupAgency();
    expect(await admin("GET", `/keys/${keyUuid}/security-events`)).toMatchObject({ status: 200, body: { events: [] } });

    expect((await renew(token, rotateKey)).status).toBe(200);
    const ip = uniqueIp();
    const replay = await api("POST", "/auth/token/renew", { body: { access_token: token, rotate_key: rotateKey }, ip });
    expectError(replay, 401, "Invalid access token or rotate key");

    const events = await admin("GET", `/keys/${keyUuid}/security-events`);
    expect(events.status).toBe(200);
    expect(events.body.events).toEqual([{ type: "rotate_key_replay", ip, created_at: expect.stringMatching(ISO_MS) }]);
    expect((await admin("GET", `/keys/${other.keyUuid}/security-events`)).body.events).toEqual([]);
  });

  it("records a rotate key burned by regenerate-rotate-key when it is replayed", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    await admin("POST", `/keys/${keyUuid}/regenerate-rotate-key`);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    const events = await admin("GET", `/keys/${keyUuid}/security-events`);
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(["rotate_key_replay"]);
  });
});

describe("legacy calendar tokens", () => {
  it("creates a non-expiring calendar-only token", async () => {
    const agencyUuid = await createAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
    expect(res.status).toBe(201);
    expect(typeof res.body.token).toBe("string");
    expect(res.body.token).not.toMatch(/^par_/);
    expect(res.body.key).toMatchObject({ agency_uuid: agencyUuid, kind: "legacy_calendar", scopes: ["calendar"], expires_at: null });
    const keys = await admin("GET", `/agencies/${agencyUuid}/keys`);
    expect(keys.body.keys.map((k: { key_uuid: string }) => k.key_uuid)).toContain(res.body.key.key_uuid);
  });

  it("authenticates but lacks every scope other than calendar", async () => {
    const agencyUuid = await createAgency();
    const { body } = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
    // 403, not 401: the token is recognised; it is only missing the scope.
    expectError(await listFields(body.token), 403, "Token missing required scope: fields", "insufficient_scope");
    expectError(await listContacts(body.token), 403, "Token missing required scope: contacts", "insufficient_scope");
  });

  it("cannot be renewed, rotated, regenerated or given other scopes", async () => {
    const agencyUuid = await createAgency();
    const { body } = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
    const keyUuid = body.key.key_uuid;
    expectError(await renew(body.token, body.token), 401, "Invalid access token or rotate key");
    expectError(await renew(body.token, "par_guess"), 401, "Invalid access token or rotate key");
    expectError(await admin("POST", `/keys/${keyUuid}/rotate-secrets`), 400, undefined, "validation_error");
    expectError(await admin("POST", `/keys/${keyUuid}/regenerate-rotate-key`), 400, undefined, "validation_error");
    expectError(await admin("PATCH", `/keys/${keyUuid}`, { scopes: ["*"] }), 400, undefined, "validation_error");
    // Still authenticates afterwards.
    expectError(await listFields(body.token), 403, "Token missing required scope: fields");
  });

  it("stops authenticating once revoked", async () => {
    const agencyUuid = await createAgency();
    const { body } = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
    expect((await admin("POST", `/keys/${body.key.key_uuid}/revoke`)).status).toBe(200);
    expectError(await listFields(body.token), 401, "Invalid or missing token", "invalid_token");
  });

  it("answers 404 for an unknown agency", async () => {
    expectError(await admin("POST", `/agencies/${UNKNOWN_UUID}/legacy-calendar-tokens`), 404, "Agency not found");
  });
});

describe("team members", () => {
  it("adds a member and returns its public record", async () => {
    const agencyUuid = await createAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/members`, { name: "Dana Agent", email: "Dana@Example.com", role: "admin" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      member: {
        agent_uuid: expect.stringMatching(UUID),
        name: "Dana Agent",
        email: "dana@example.com",
        role: "admin",
        created_at: expect.stringMatching(ISO_MS),
      },
    });
  });

  it("rejects a second member with the same email, in any case, with 409", async () => {
    const agencyUuid = await createAgency();
    const first = await createMember(agencyUuid, { email: "sam@example.com" });
    const res = await admin("POST", `/agencies/${agencyUuid}/members`, { name: "Sam Again", email: "SAM@example.com", role: "agent" });
    expectError(res, 409, new RegExp(first), "conflict");
  });

  it("allows the same email in another agency", async () => {
    await createMember(await createAgency(), { email: "shared@example.com" });
    await createMember(await createAgency(), { email: "shared@example.com" });
  });

  it("rejects a second owner with 409", async () => {
    const agencyUuid = await createAgency();
    await createMember(agencyUuid, { role: "owner" });
    const res = await admin("POST", `/agencies/${agencyUuid}/members`, { name: "Second", email: "second@example.com", role: "owner" });
    expectError(res, 409, "This agency already has an owner", "conflict");
  });

  it.each([
    ["an unknown role", { name: "Dana", email: "dana@example.com", role: "superuser" }, /role/],
    ["a malformed email", { name: "Dana", email: "not-an-email", role: "agent" }, /email/],
    ["a missing name", { email: "dana@example.com", role: "agent" }, "name is required"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const agencyUuid = await createAgency();
    expectError(await admin("POST", `/agencies/${agencyUuid}/members`, body), 400, message, "validation_error");
  });

  it("answers 404 for an unknown agency", async () => {
    const res = await admin("POST", `/agencies/${UNKNOWN_UUID}/members`, { name: "Dana", email: "d@example.com", role: "agent" });
    expectError(res, 404, "Agency not found");
  });
});

describe("path events", () => {
  it("records an event for a path of the agency", async () => {
    const agencyUuid = await createAgency();
    const pathUuid = await createPathRecord(agencyUuid);
    const at = "2026-11-20T15:30:00.000Z";
    const res = await admin("POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: pathUuid, type: "lead", step: "contact-form", at });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      event: { event_uuid: expect.stringMatching(UUID), path_uuid: pathUuid, type: "lead", step: "contact-form", at },
    });
  });

  it("defaults the time to now and the step to null", async () => {
    const agencyUuid = await createAgency();
    const pathUuid = await createPathRecord(agencyUuid);
    const before = Date.now();
    const res = await admin("POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: pathUuid, type: "view" });
    expect(res.status).toBe(201);
    expect(res.body.event.step).toBeNull();
    expect(Date.parse(res.body.event.at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("rejects an unknown path, or another agency's, with 400 Unknown path_uuid", async () => {
    const agencyUuid = await createAgency();
    const othersPath = await createPathRecord(await createAgency());
    for (const pathUuid of [UNKNOWN_UUID, othersPath]) {
      const res = await admin("POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: pathUuid, type: "view" });
      expectError(res, 400, "Unknown path_uuid", "validation_error");
    }
  });

  it("rejects an unknown event type with 400", async () => {
    const agencyUuid = await createAgency();
    const pathUuid = await createPathRecord(agencyUuid);
    const res = await admin("POST", `/agencies/${agencyUuid}/path-events`, { path_uuid: pathUuid, type: "click" });
    expectError(res, 400, /type/, "validation_error");
  });
});


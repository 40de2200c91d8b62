import { describe, expect, it } from "vitest";
import { admin, api, expectError, uniqueIp } from "../../helpers/http";
import { createAgency, createKey, setupAgency } from "../../helpers/factories";
import { dbOfRecord } from "../../helpers/shards";

const DAY = 86_400_000;
const renew = (access_token: unknown, rotate_key: unknown, ip = uniqueIp()) =>
  api("POST", "/auth/token/renew", { body: { access_token, rotate_key }, ip });

// Any route that needs the `contacts` scope will do; listing is the cheapest.
const listContacts = (token: string) => api("GET", "/contacts", { token });

describe("access tokens", () => {
  it("issues prefixed secrets with 256 bits of randomness and a 30-day expiry", async () => {
    const agency = await createAgency();
    const res = await admin("POST", `/agencies/${agency}/keys`, { name: "crm", scopes: ["contacts"] });
    expect(res.status).toBe(201);
    expect(res.body.access_token).toMatch(/^pa_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(res.body.access_token.slice(3, 35)).toBe(res.body.key.key_uuid.replaceAll("-", ""));
    expect(res.body.rotate_key).toMatch(/^par_[A-Za-z0-9_-]{43}$/);
    const expiresIn = Date.parse(res.body.key.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(30 * DAY - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * DAY);
  });

  it("stores only hashes of the secrets", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const row = await (await dbOfRecord(keyUuid)).prepare("SELECT * FROM api_keys WHERE id = ?").bind(keyUuid).first<Record<string, unknown>>();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(rotateKey);
    expect(row?.access_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("accepts a valid token and answers within the token's agency", async () => {
    const { token } = await setupAgency();
    const res = await listContacts(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it.each([
    ["no header", undefined],
    ["an empty bearer", "Bearer "],
    ["another scheme", "Basic dXNlcjpwYXNz"],
    ["an unknown token", "Bearer pa_unknown"],
    ["an oversized token", `Bearer pa_${"x".repeat(5000)}`],
  ])("rejects %s with 401 Invalid or missing token", async (_name, header) => {
    const res = await api("GET", "/contacts", { headers: header ? { Authorization: header } : {}, ip: uniqueIp() });
    expectError(res, 401, "Invalid or missing token", "invalid_token");
  });

  it("answers an expired token with 401 token_expired", async () => {
    const agency = await createAgency();
    const { token } = await createKey(agency, { scopes: ["*"], expires_at: new Date(Date.now() - 1000).toISOString() });
    const res = await listContacts(token);
    expectError(res, 401, undefined, "token_expired");
  });

  it("rejects a revoked key on the very next request", async () => {
    const { token, keyUuid } = await setupAgency();
    expect((await listContacts(token)).status).toBe(200);
    expect((await admin("POST", `/keys/${keyUuid}/revoke`)).status).toBe(200);
    expectError(await listContacts(token), 401, "Invalid or missing token", "invalid_token");
  });

  it("applies a scope edit on the very next request", async () => {
    const agency = await createAgency();
    const { token, keyUuid } = await createKey(agency, { scopes: ["contacts"] });
    expect((await listContacts(token)).status).toBe(200);
    const edit = await admin("PATCH", `/keys/${keyUuid}`, { scopes: ["fields"] });
    expect(edit.status).toBe(200);
    expect(edit.body.key.scopes).toEqual(["fields"]);
    expectError(await listContacts(token), 403, "Token missing required scope: contacts", "insufficient_scope");
  });

  it("answers from the key's gate cache, and operator edits invalidate it at once", async () => {
    const agency = await createAgency();
    const { token, keyUuid } = await createKey(agency, { scopes: ["contacts"] });
    expect((await listContacts(token)).status).toBe(200);
    // A write behind the API's back is not seen: the gate did not go back to D1.
    await (await dbOfRecord(keyUuid)).prepare("UPDATE api_keys SET scopes = '[\"fields\"]' WHERE id = ?").bind(keyUuid).run();
    expect((await listContacts(token)).status).toBe(200);
    // The operator API's edit invalidates the cache, so it holds from the next request.
    expect((await admin("PATCH", `/keys/${keyUuid}`, { name: "renamed" })).status).toBe(200);
    expectError(await listContacts(token), 403, "Token missing required scope: contacts");
  });

  it("lets a calendar-only key live without expiry", async () => {
    const agency = await createAgency();
    const res = await admin("POST", `/agencies/${agency}/keys`, { name: "voice", scopes: ["calendar"], expires: false });
    expect(res.status).toBe(201);
    expect(res.body.key.expires_at).toBeNull();
    expectError(await listContacts(res.body.access_token), 403, "Token missing required scope: contacts");
  });

  it("authenticates a legacy calendar token, limited to the calendar scope", async () => {
    const agency = await createAgency();
    const res = await admin("POST", `/agencies/${agency}/legacy-calendar-tokens`);
    expect(res.status).toBe(201);
    expect(res.body.key.expires_at).toBeNull();
    expect(res.body.key.scopes).toEqual(["calendar"]);
    expectError(await listContacts(res.body.token), 403, "Token missing required scope: contacts", "insufficient_scope");
  });
});

describe("POST /auth/token/renew", () => {
  it("exchanges the pair for a new one; the old pair stops working at once", async () => {
    const { token, rotateKey } = await setupAgency();
    const res = await renew(token, rotateKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true });
    expect(res.body.access_token).toMatch(/^pa_/);
    expect(res.body.rotate_key).toMatch(/^par_/);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(30 * DAY - 60_000);

    expect((await listContacts(res.body.access_token)).status).toBe(200);
    expectError(await listContacts(token), 401, "Invalid or missing token");
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key", "invalid_token");
    expectError(await renew(res.body.access_token, rotateKey), 401, "Invalid access token or rotate key");
  });

  it("renews an expired access token", async () => {
    const agency = await createAgency();
    const { token, rotateKey } = await createKey(agency, { scopes: ["*"], expires_at: new Date(Date.now() - DAY).toISOString() });
    expectError(await listContacts(token), 401, undefined, "token_expired");
    const res = await renew(token, rotateKey);
    expect(res.status).toBe(200);
    expect((await listContacts(res.body.access_token)).status).toBe(200);
  });

  it("keeps a non-expiring calendar key non-expiring", async () => {
    const agency = await createAgency();
    const { token, rotateKey } = await createKey(agency, { scopes: ["calendar"], expires: false });
    const res = await renew(token, rotateKey);
    expect(res.status).toBe(200);
    expect(res.body.expires_at).toBeNull();
  });

  it("rejects a rotate key of another key", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    expectError(await renew(a.token, b.rotateKey), 401, "Invalid access token or rotate key");
    expect((await listContacts(a.token)).status).toBe(200);
  });

  it("rejects a revoked key", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    await admin("POST", `/keys/${keyUuid}/revoke`);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
  });

  it("cannot renew a legacy calendar token", async () => {
    const agency = await createAgency();
    const { body } = await admin("POST", `/agencies/${agency}/legacy-calendar-tokens`);
    expectError(await renew(body.token, "par_anything"), 401, "Invalid access token or rotate key");
  });

  it.each([
    ["no body", undefined, /is required|Request body/],
    ["a missing rotate_key", { access_token: "pa_x" }, "rotate_key is required"],
    ["a missing access_token", { rotate_key: "par_x" }, "access_token is required"],
    ["a number", { access_token: 1, rotate_key: "par_x" }, /access_token/],
    ["an unknown field", { access_token: "pa_x", rotate_key: "par_x", extra: 1 }, /Unknown field/],
  ])("answers %s with 400", async (_name, body, message) => {
    const res = await api("POST", "/auth/token/renew", { body, ip: uniqueIp() });
    expectError(res, 400, message, "validation_error");
  });

  it("answers malformed JSON with 400 in the envelope", async () => {
    const res = await api("POST", "/auth/token/renew", {
      rawBody: "{not json",
      headers: { "Content-Type": "application/json" },
      ip: uniqueIp(),
    });
    expectError(res, 400, undefined, "validation_error");
  });

  it("lets exactly one of 10 concurrent renewals with one pair succeed", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const results = await Promise.all(Array.from({ length: 10 }, () => renew(token, rotateKey)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) {
      expectError(loser, 401, "Invalid access token or rotate key");
    }
    // The one new pair is the key's pair: it works and renews again.
    const winner = winners[0]!.body;
    expect((await listContacts(winner.access_token)).status).toBe(200);
    expect((await renew(winner.access_token, winner.rotate_key)).status).toBe(200);
    const burned = await (await dbOfRecord(keyUuid)).prepare("SELECT count(*) AS n FROM burned_secrets WHERE key_id = ?").bind(keyUuid).first<{ n: number }>();
    expect(burned?.n).toBe(4);
  });

  it("records a replayed rotate key as a security event", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const first = await renew(token, rotateKey);
    expect(first.status).toBe(200);
    const ip = uniqueIp();
    expectError(await renew(first.body.access_token, rotateKey, ip), 401, "Invalid access token or rotate key");
    const events = await admin("GET", `/keys/${keyUuid}/security-events`);
    expect(events.status).toBe(200);
    expect(events.body.events).toEqual([expect.objectContaining({ type: "rotate_key_replay", ip })]);
  });

  it("is limited to 10 requests per minute per client IP", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) {
      const res = await renew("pa_x", "par_x", ip);
      expect(res.status).toBe(401);
      expect(res.headers.get("RateLimit-Limit")).toBe("10");
    }
    const limited = await renew("pa_x", "par_x", ip);
    expectError(limited, 429, undefined, "rate_limited");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Another client is unaffected.
    expect((await renew("pa_x", "par_x", uniqueIp())).status).toBe(401);
  });
});

describe("dashboard secret resets", () => {
  it("rotate-secrets replaces both secrets at once", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const res = await admin("POST", `/keys/${keyUuid}/rotate-secrets`);
    expect(res.status).toBe(200);
    expectError(await listContacts(token), 401, "Invalid or missing token");
    expect((await listContacts(res.body.access_token)).status).toBe(200);
    expectError(await renew(res.body.access_token, rotateKey), 401, "Invalid access token or rotate key");
    expect((await renew(res.body.access_token, res.body.rotate_key)).status).toBe(200);
  });

  it("regenerate-rotate-key keeps the access token and replaces only the rotate key", async () => {
    const { token, rotateKey, keyUuid } = await setupAgency();
    const res = await admin("POST", `/keys/${keyUuid}/regenerate-rotate-key`);
    expect(res.status).toBe(200);
    expect(res.body.rotate_key).toMatch(/^par_/);
    expect((await listContacts(token)).status).toBe(200);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    expect((await renew(token, res.body.rotate_key)).status).toBe(200);
  });
});

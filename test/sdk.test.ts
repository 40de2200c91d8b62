import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  memoryTokenStore,
  NotFoundError,
  PartnerApi,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  verifyWebhook,
  WebhookVerificationError,
  type TokenPair,
} from "@partner-api/sdk";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { messages } from "@/lib/errors";
import { contactMessages } from "@/domain/contacts/contacts.rules";
import { advanceClock, restoreClock, setClock } from "./helpers/clock";
import { createAgency, createKey, setupAgency } from "./helpers/factories";
import { api, BASE } from "./helpers/http";
import { apiWithEnv } from "./helpers/voice-factories";
import { createEndpoint, deliverWebhooks, stubReceiver, webhookEnv } from "./helpers/webhooks";

const DAY = 86_400_000;

interface Sent {
  method: string;
  path: string;
  headers: Headers;
  /** The X-D1-Bookmark of the answer (null for a request that got none). */
  answeredBookmark?: string | null;
}

/**
 * The SDK as a partner builds it, sending to the Worker under test. `sent` records every
 * request the SDK put on the wire (retries and renewals included); `waits` every pause it
 * took, each of which moves the faked clock by that much, so a rate-limit window really ends.
 */
function sdk(options: { token?: string; tokens?: ReturnType<typeof memoryTokenStore>; fetch?: (request: Request) => Promise<Response> } = {}) {
  const sent: Sent[] = [];
  const waits: number[] = [];
  const worker = (request: Request) => exports.default.fetch(request);
  const client = new PartnerApi({
    baseUrl: `${BASE}/api/v2`,
    ...(options.tokens ? { tokens: options.tokens } : { token: options.token! }),
    fetch: async (request) => {
      const url = new URL(request.url);
      const record: Sent = { method: request.method, path: `${url.pathname}${url.search}`, headers: new Headers(request.headers) };
      sent.push(record);
      const response = await (options.fetch ?? worker)(request);
      record.answeredBookmark = response.headers.get("X-D1-Bookmark");
      return response;
    },
    sleep: async (ms) => {
      waits.push(ms);
      advanceClock(ms);
    },
  });
  return { client, sent, waits };
}

const contactsNamed = async (token: string, lastName: string) =>
  ((await api("GET", `/contacts?q=${lastName}&limit=100`, { token })).body.contacts as { last_name: string }[]).filter((c) => c.last_name === lastName);

afterEach(() => restoreClock());

describe("partner SDK", () => {
  it("waits out a 429 for the announced time and retries the POST with the same Idempotency-Key: one contact", async () => {
    setClock(Date.now());
    const agencyUuid = await createAgency();
    // A tenth of POST /contacts' 30 per minute: 3.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 0.1 });
    for (let i = 0; i < 3; i++) expect((await api("POST", "/contacts", { token, body: { first_name: "Fill", last_name: `Up${i}` } })).status).toBe(201);

    const { client, sent, waits } = sdk({ token });
    const created = await client.post("/contacts", { body: { first_name: "Grace", last_name: "Retried" } });

    expect(created.contact.first_name).toBe("Grace");
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(["POST /api/v2/contacts", "POST /api/v2/contacts"]);
    const keys = sent.map((s) => s.headers.get("Idempotency-Key"));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    // The 429's Retry-After was the whole wait: the window frees 60 s after its first request.
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(waits[0]).toBeLessThanOrEqual(61_000 * 1.1);
    expect(await contactsNamed(token, "Retried")).toHaveLength(1);
  });

  it("repeats a POST whose answer was lost with the same Idempotency-Key, and the API answers it once: one contact", async () => {
    const { token } = await setupAgency();
    let dropped = 0;
    const { client, sent } = sdk({
      token,
      // The first request reaches the Worker and is carried out, but its answer never arrives.
      fetch: async (request) => {
        const response = await exports.default.fetch(request);
        if (dropped++ === 0) throw new TypeError("network connection lost");
        return response;
      },
    });
    const created = await client.post("/contacts", { body: { first_name: "Ada", last_name: "LostAnswer" } });
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers.get("Idempotency-Key")).toBe(sent[0]!.headers.get("Idempotency-Key"));
    const [only] = await contactsNamed(token, "LostAnswer");
    expect(only).toMatchObject({ contact_uuid: created.contact.contact_uuid });
    expect(await contactsNamed(token, "LostAnswer")).toHaveLength(1);
  });

  it("retries a 503 after RateLimit-Reset when it names no Retry-After, and gives up at once on a longer wait than allowed", async () => {
    const { token } = await setupAgency();
    // A proxy in front of the Worker answers 503 once (as during an agency move), then lets requests through.
    let unavailable = 1;
    const { client, sent, waits } = sdk({
      token,
      fetch: async (request) =>
        unavailable-- > 0
          ? new Response(JSON.stringify({ success: false, error: "busy", code: "agency_moving" }), { status: 503, headers: { "RateLimit-Reset": "2" } })
          : exports.default.fetch(request),
    });
    expect((await client.get("/contacts")).success).toBe(true);
    expect(sent).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[0]).toBeLessThanOrEqual(2200);

    const patient = new PartnerApi({
      baseUrl: `${BASE}/api/v2`,
      token,
      retry: { maxWaitMs: 5_000 },
      sleep: async () => {
        throw new Error("must not wait");
      },
      fetch: async () => new Response(JSON.stringify({ success: false, error: "later", code: "agency_moving" }), { status: 503, headers: { "Retry-After": "30" } }),
    });
    await expect(patient.get("/contacts")).rejects.toMatchObject({ constructor: ServerError, status: 503, code: "agency_moving", retryAfter: 30 });
  });

  it("throws a 400 at once, typed, with the API's message and field details: no retry", async () => {
    const { token } = await setupAgency();
    const { client, sent, waits } = sdk({ token });
    const error = await client.post("/contacts", { body: { first_name: "", last_name: "Blank" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, code: "validation_error", message: contactMessages.namesRequired });
    expect((error as ValidationError).requestId).toMatch(/.+/);
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("types every error by status: 401, 403, 404 (another agency's record), 409, and 429 once retries run out", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const theirs = await api("POST", "/contacts", { token: other.token, body: { first_name: "Not", last_name: "Yours" } });
    const calendarOnly = await createKey(other.agencyUuid, { scopes: ["calendar"] });

    await expect(sdk({ token: "pa_not_a_real_token" }).client.get("/contacts")).rejects.toMatchObject({
      constructor: AuthenticationError,
      status: 401,
      code: "invalid_token",
      message: messages.invalidToken,
    });
    await expect(sdk({ token: calendarOnly.token }).client.get("/contacts")).rejects.toMatchObject({
      constructor: PermissionError,
      status: 403,
      code: "insufficient_scope",
      message: messages.missingScope("contacts"),
    });
    await expect(
      sdk({ token }).client.get("/contacts/{contact_uuid}", { params: { path: { contact_uuid: theirs.body.contact.contact_uuid } } }),
    ).rejects.toMatchObject({ constructor: NotFoundError, status: 404, code: "not_found", message: contactMessages.notFound });
    const { client } = sdk({ token });
    await client.post("/contacts", { body: { first_name: "Dup", last_name: "One", email: "dup@example.com" } });
    const conflict = await client.post("/contacts", { body: { first_name: "Dup", last_name: "Two", email: "dup@example.com" } }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: "conflict" });

    setClock(Date.now());
    const limited = await createKey(other.agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 0.1 });
    for (let i = 0; i < 3; i++) await api("POST", "/contacts", { token: limited.token, body: { first_name: "Fill", last_name: `Lim${i}` } });
    const noRetries = new PartnerApi({ baseUrl: `${BASE}/api/v2`, token: limited.token, fetch: (r) => exports.default.fetch(r), retry: { maxRetries: 0 } });
    const rateLimited = await noRetries.post("/contacts", { body: { first_name: "Too", last_name: "Many" } }).catch((e: unknown) => e);
    expect(rateLimited).toBeInstanceOf(RateLimitError);
    expect(rateLimited).toMatchObject({ status: 429, code: "rate_limited", message: messages.rateLimited });
    expect((rateLimited as RateLimitError).retryAfter).toBeGreaterThan(0);
  });

  it("walks a list to its end with for await, by cursor, each record once", async () => {
    const { token } = await setupAgency();
    for (let i = 0; i < 23; i++) {
      expect((await api("POST", "/contacts", { token, body: { first_name: `Walker${i}`, last_name: "Walked" } })).status).toBe(201);
    }
    const { client, sent } = sdk({ token });
    const seen: string[] = [];
    for await (const contact of client.list("/contacts", { params: { query: { q: "Walked", limit: 10 } } })) seen.push(contact.first_name);

    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect(sent.map((s) => new URL(s.path, BASE).searchParams.has("cursor"))).toEqual([false, true, true]);

    // From a page number: the cursor carries the walk after it (page with cursor would be a 400).
    const fromPage = sdk({ token });
    let count = 0;
    for await (const contact of fromPage.client.list("/contacts", { params: { query: { q: "Walked", page: 1, limit: 20 } } })) count += contact ? 1 : 0;
    expect(count).toBe(23);
    const queries = fromPage.sent.map((s) => new URL(s.path, BASE).searchParams);
    expect(queries.map((q) => [q.get("page"), q.has("cursor")])).toEqual([["1", false], [null, true]]);
    // Without a limit, the largest page.
    const whole = sdk({ token });
    for await (const contact of whole.client.list("/contacts", { params: { query: { q: "Walked" } } })) expect(contact.last_name).toBe("Walked");
    expect(whole.sent.map((s) => new URL(s.path, BASE).searchParams.get("limit"))).toEqual(["100"]);
  });

  it("reads its own writes: each request carries the bookmark of the answer before it", async () => {
    const { token } = await setupAgency();
    const { client, sent } = sdk({ token });
    await client.post("/contacts", { body: { first_name: "Read", last_name: "Own" } });
    const read = await client.get("/contacts", { params: { query: { q: "Own" } } });
    await client.get("/contacts/tags");

    expect(read.contacts.map((c) => c.first_name)).toEqual(["Read"]);
    expect(sent[0]!.headers.get("X-D1-Bookmark")).toBeNull();
    expect(sent[0]!.answeredBookmark).toMatch(/^DB(_EU)?:/);
    expect(sent[1]!.headers.get("X-D1-Bookmark")).toBe(sent[0]!.answeredBookmark);
    expect(sent[2]!.headers.get("X-D1-Bookmark")).toBe(sent[1]!.answeredBookmark);
  });

  it("keeps the latest bookmark when an earlier request's answer arrives after a later one's", async () => {
    const bookmark = (n: number) => `DB:00000000-${String(n).padStart(8, "0")}-00000000-${"0".repeat(32)}`;
    let releaseSlow!: () => void;
    const slowHeld = new Promise<void>((resolve) => (releaseSlow = resolve));
    const answer = (n: number) => new Response(JSON.stringify({ success: true, tags: [] }), { headers: { "X-D1-Bookmark": bookmark(n), "Content-Type": "application/json" } });
    let calls = 0;
    const { client, sent } = sdk({
      token: "pa_fake",
      // The first request (a read) is answered last, with the older bookmark 3; the second (a write) answers 5 at once.
      fetch: async () => {
        const n = ++calls;
        if (n === 1) {
          await slowHeld;
          return answer(3);
        }
        return answer(n === 2 ? 5 : 6);
      },
    });
    const slowRead = client.get("/contacts/tags");
    await client.get("/contacts/tags");
    releaseSlow();
    await slowRead;
    await client.get("/contacts/tags");
    expect(sent[2]!.headers.get("X-D1-Bookmark")).toBe(bookmark(5));
  });

  it("renews an expired token exactly once when several requests find it expired together", async () => {
    const agencyUuid = await createAgency();
    const first = await createKey(agencyUuid, { scopes: ["*"], expires_at: new Date(Date.now() - DAY).toISOString() });
    const stored: TokenPair[] = [];
    const tokens = memoryTokenStore({ access_token: first.token, rotate_key: first.rotateKey }, (pair) => {
      stored.push(pair);
    });
    const { client, sent } = sdk({ tokens });

    const answers = await Promise.all(Array.from({ length: 5 }, () => client.get("/contacts")));

    expect(answers.every((a) => a.success)).toBe(true);
    expect(sent.filter((s) => s.path === "/api/v2/auth/token/renew")).toHaveLength(1);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.access_token).not.toBe(first.token);
    const retried = sent.filter((s) => s.path === "/api/v2/contacts" && s.headers.get("Authorization") === `Bearer ${stored[0]!.access_token}`);
    expect(retried).toHaveLength(5);
    // The stored pair is the live one: the old token is gone, the new one works.
    expect((await api("GET", "/contacts", { token: first.token })).status).toBe(401);
    expect((await api("GET", "/contacts", { token: stored[0]!.access_token })).status).toBe(200);
  });

  it("takes a token renewed meanwhile by another process sharing the store, without renewing again", async () => {
    const agencyUuid = await createAgency();
    const first = await createKey(agencyUuid, { scopes: ["*"], expires_at: new Date(Date.now() - DAY).toISOString() });
    let pair: TokenPair = { access_token: first.token, rotate_key: first.rotateKey };
    const shared = { get: () => pair, set: (next: TokenPair) => void (pair = next) };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holdNext = true;
    // Process B's first request leaves with the old token but reaches the API only after A renewed.
    const b = sdk({
      tokens: shared,
      fetch: async (request) => {
        if (holdNext) {
          holdNext = false;
          await held;
        }
        return exports.default.fetch(request);
      },
    });
    const late = b.client.get("/contacts");
    const a = sdk({ tokens: shared });
    await a.client.get("/contacts");
    release();

    expect((await late).success).toBe(true);
    const renewals = [...a.sent, ...b.sent].filter((s) => s.path === "/api/v2/auth/token/renew");
    expect(renewals).toHaveLength(1);
    expect(b.sent.map((s) => s.headers.get("Authorization"))).toEqual([`Bearer ${first.token}`, `Bearer ${pair.access_token}`]);
  });

  it("does not send a renewal again when its answer was lost: the rotate key is spent", async () => {
    const agencyUuid = await createAgency();
    const first = await createKey(agencyUuid, { scopes: ["*"], expires_at: new Date(Date.now() - DAY).toISOString() });
    const { client, sent } = sdk({
      tokens: memoryTokenStore({ access_token: first.token, rotate_key: first.rotateKey }),
      fetch: async (request) => {
        const response = await exports.default.fetch(request);
        if (request.url.endsWith("/auth/token/renew")) throw new TypeError("network connection lost");
        return response;
      },
    });
    await expect(client.get("/contacts")).rejects.toMatchObject({ constructor: ConnectionError, code: "connection_error" });
    expect(sent.filter((s) => s.path === "/api/v2/auth/token/renew")).toHaveLength(1);
  });

  it("verifies a real webhook delivery and refuses a tampered one", async () => {
    const { token } = await setupAgency();
    const { endpoint, secret } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const ping = await apiWithEnv(customEnv, "POST", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}/test`, token);
    const receiver = stubReceiver(endpoint.url);
    await deliverWebhooks([`${ping.body.event_uuid}:${endpoint.webhook_endpoint_uuid}`]);
    const delivery = receiver.received[0]!;

    const event = verifyWebhook(delivery.body, new Headers(delivery.headers), secret);
    expect(event).toMatchObject({ event_uuid: ping.body.event_uuid, type: "ping" });
    expect(verifyWebhook(delivery.body, delivery.headers, secret).event_uuid).toBe(ping.body.event_uuid);

    const tampered = delivery.body.replace("test event", "tested event");
    expect(tampered).not.toBe(delivery.body);
    expect(() => verifyWebhook(tampered, delivery.headers, secret)).toThrow(WebhookVerificationError);
    const { secret: otherSecret } = await createEndpoint(token);
    expect(() => verifyWebhook(delivery.body, delivery.headers, otherSecret)).toThrow(WebhookVerificationError);
  });
});

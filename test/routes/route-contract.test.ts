import { beforeAll, describe, expect, it } from "vitest";
import { buildPartnerApi } from "@/app";
import { messages } from "@/lib/errors";
import { api, BASE, expectError, uniqueIp, type ApiResponse, type CallOptions } from "../helpers/http";
import { createAgency, createKey, setupAgency, type TestAgency } from "../helpers/factories";
import { exampleBody, isPublic, operationsOf, type Json, type Operation } from "../helpers/openapi-doc";
import { populate, type Populated } from "../helpers/populate";

/**
 * What every Partner API route does the same way, generated from the OpenAPI document, so a
 * route added later gets these cases without touching this file:
 *
 * - a secured operation answers 401 `invalid_token` without a token and with one not of ours,
 *   403 `insufficient_scope` naming its first scope to a key without any of its scopes, and
 *   429 `rate_limited` once its key has used up `x-ratelimit.limit`;
 * - a public operation answers 429 once a client IP has used up its limit;
 * - an operation with a record in its path answers 404 to another agency's key, for a real
 *   record of every kind (populate(); tenant-isolation.test.ts also checks that such requests
 *   change none of the owner's rows, across shards).
 *
 * Only the limits are written out again (from docs/decisions/rate-limits.md): a route named
 * there needs a line in DESIGN_LIMITS, one taking its method's default needs nothing.
 *
 * The guard (src/middleware/guard.ts) is route middleware, run before the request's path, query
 * and body are validated, so 401, 403 and 429 need no valid input: path parameters are random
 * UUIDs (new ones for each request, so one bucket is shown to serve every record), a JSON body
 * is `{}`, and required query parameters are left out. What each route does beyond this (a
 * scope that is not enough, a refused request changing nothing) stays in the route's own file.
 */

const doc = buildPartnerApi().openApiDocument() as Json;

interface RateLimit {
  limit: number;
  window_seconds: number;
  per: "key" | "ip";
}

interface Contract extends Operation {
  /** `x-required-scopes`: any one of them grants the route; empty on a public route. */
  scopes: string[];
  /** `x-ratelimit`. */
  rateLimit: RateLimit;
  /** The path parameters, in order. */
  params: string[];
  /** Whether the operation takes a JSON body. */
  json: boolean;
}

const operations: Contract[] = operationsOf(doc).map((o) => ({
  ...o,
  scopes: (o.op["x-required-scopes"] ?? []) as string[],
  rateLimit: o.op["x-ratelimit"] as RateLimit,
  params: [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
  json: o.op.requestBody?.content?.["application/json"] !== undefined,
}));
const secured = operations.filter((o) => !isPublic(o.op));
const withRecord = operations.filter((o) => o.params.length > 0);

/** The scopes an OAuth client can ask for: the document's list of every scope. */
const allScopes = Object.keys(doc.components?.securitySchemes?.oauth2?.flows?.authorizationCode?.scopes ?? {});

/** A scope the operation does not accept. */
const foreignScope = (o: Contract) => allScopes.find((s) => !o.scopes.includes(s));

/**
 * docs/decisions/rate-limits.md's table, written out again here (parameters as `{}`), so a limit
 * changed in src/lib/rate-limits.ts alone, and with it the document, fails here.
 */
const DESIGN_LIMITS: Record<string, number> = {
  "GET /voice-ai/wallet": 30,
  "POST /appointments/{}/cancel": 10,
  "PATCH /users/{}/role": 10,
  "POST /calendar/bookings": 20,
  "PATCH /lead-orders/{}": 10,
  "POST /lead-orders/{}/pause": 10,
  "POST /lead-orders/{}/cancel": 10,
  "POST /voice-ai/calls": 10,
  "POST /voice-ai/calls/{}/cancel": 10,
  "POST /contacts/bulk": 10,
  "POST /webhook-endpoints/{}/test": 10,
  "POST /webhook-endpoints/{}/rotate-secret": 10,
  "POST /events/{}/redeliver": 10,
  "POST /auth/token/renew": 10,
};
const DESIGN_DEFAULT_LIMITS: Record<string, number> = { GET: 60, POST: 30, PUT: 30, PATCH: 30, DELETE: 10 };
const designLimit = (o: Contract) => DESIGN_LIMITS[`${o.method} ${o.path.replace(/\{[^}]+\}/g, "{}")}`] ?? DESIGN_DEFAULT_LIMITS[o.method];

const RESOURCE_METADATA = `resource_metadata="${BASE}/.well-known/oauth-protected-resource"`;

/** The operation's path with a new random UUID for each parameter, and `{}` for a JSON body. */
function send(o: Contract, options: CallOptions = {}): Promise<ApiResponse> {
  const path = o.path.replace(/\{[^}]+\}/g, () => crypto.randomUUID());
  return api(o.method, path, { ...(o.json ? { body: {} } : {}), ...options });
}

/** The RateLimit headers a request that reached the operation's limit check carries. */
function expectRateLimitHeaders(o: Contract, res: ApiResponse) {
  const { limit, window_seconds: window } = o.rateLimit;
  expect(res.headers.get("RateLimit-Limit"), o.key).toBe(String(limit));
  expect(res.headers.get("RateLimit-Policy"), o.key).toBe(`${limit};w=${window}`);
}

describe("the document the cases come from", () => {
  it("has secured and public operations, and operations with a record in their path", () => {
    expect(secured.length).toBeGreaterThanOrEqual(60);
    expect(operations.length - secured.length).toBeGreaterThanOrEqual(2);
    expect(withRecord.length).toBeGreaterThanOrEqual(30);
  });

  it("gives every operation its rate limit, and every secured one its scopes and a scope it does not accept", () => {
    for (const o of operations) {
      expect(o.rateLimit, o.key).toMatchObject({ limit: expect.any(Number), window_seconds: expect.any(Number), per: expect.stringMatching(/^(key|ip)$/) });
      expect(o.rateLimit.per, o.key).toBe(isPublic(o.op) ? "ip" : "key");
    }
    for (const o of secured) {
      expect(o.scopes.length, o.key).toBeGreaterThan(0);
      for (const scope of o.scopes) expect(allScopes, o.key).toContain(scope);
      expect(foreignScope(o), o.key).toBeDefined();
    }
  });
});

describe("every secured operation", () => {
  let agencyUuid: string;
  beforeAll(async () => {
    agencyUuid = await createAgency("Route contract agency");
  });

  for (const o of secured) {
    it(`${o.key}: 401 without a token`, async () => {
      const res = await send(o, { token: null, ip: uniqueIp() });
      expectError(res, 401, "Invalid or missing token", "invalid_token");
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer ${RESOURCE_METADATA}`);
      // Counted against the client IP under the route's own limit.
      expectRateLimitHeaders(o, res);
    });

    it(`${o.key}: 401 with a malformed token`, async () => {
      const res = await send(o, { token: "pa_not-a-real-token", ip: uniqueIp() });
      expectError(res, 401, "Invalid or missing token", "invalid_token");
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer ${RESOURCE_METADATA}, error="invalid_token"`);
      expectRateLimitHeaders(o, res);
    });

    it(`${o.key}: 403 for a key with a scope it does not accept (${foreignScope(o)})`, async () => {
      const { token } = await createKey(agencyUuid, { scopes: [foreignScope(o)!] });
      const res = await send(o, { token });
      expectError(res, 403, `Token missing required scope: ${o.scopes[0]}`, "insufficient_scope");
      expect(res.headers.get("WWW-Authenticate")).toBe(`Bearer ${RESOURCE_METADATA}, error="insufficient_scope", scope="${o.scopes.join(" ")}"`);
      // The document shows the message the guard sends.
      expect(o.op.responses["403"]?.content?.["application/json"]?.example?.error).toBe(`Token missing required scope: ${o.scopes[0]}`);
      // A refused key still spends its limit.
      expectRateLimitHeaders(o, res);
      expect(res.headers.get("RateLimit-Remaining")).toBe(String(o.rateLimit.limit - 1));
    });
  }
});

describe("every operation's rate limit", () => {
  let agencyUuid: string;
  beforeAll(async () => {
    agencyUuid = await createAgency("Route contract rate limits");
  });

  for (const o of operations) {
    const per = o.rateLimit.per === "ip" ? "client IP" : "API key";
    const anyRecord = o.params.length > 0 ? `, one bucket for every ${o.params.map((p) => `{${p}}`).join(" and ")}` : "";
    it(`${o.key}: 429 past ${o.rateLimit.limit} requests a minute per ${per}${anyRecord}`, async () => {
      const { limit, window_seconds: window } = o.rateLimit;
      expect(limit, "the limit of docs/decisions/rate-limits.md").toBe(designLimit(o));
      // A fresh caller: a key holding the route's scope, or a client IP on a public route.
      const caller: CallOptions = o.rateLimit.per === "ip" ? { ip: uniqueIp() } : { token: (await createKey(agencyUuid, { scopes: [o.scopes[0]!] })).token };

      const admitted = await Promise.all(Array.from({ length: limit }, () => send(o, caller)));
      for (const res of admitted) {
        // Admitted: the key's scope is enough, and the limit not yet used up.
        expect([401, 403, 429], `${res.status} ${JSON.stringify(res.body)}`).not.toContain(res.status);
        expectRateLimitHeaders(o, res);
      }
      // Every request counted once, whatever the record in its path.
      const remaining = admitted.map((res) => Number(res.headers.get("RateLimit-Remaining"))).sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i));

      const limited = await send(o, caller);
      expectError(limited, 429, messages.rateLimited, "rate_limited");
      const retryAfter = Number(limited.headers.get("Retry-After"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(window);
      expectRateLimitHeaders(o, limited);
      expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
    });
  }
});

describe("every operation with a record in its path", () => {
  let owner: Populated;
  let intruder: TestAgency;
  beforeAll(async () => {
    owner = await populate("Route contract owner");
    intruder = await setupAgency("Route contract intruder");
  });

  for (const o of withRecord) {
    it(`${o.key}: 404 for another agency's record`, async () => {
      let path = o.path;
      for (const name of o.params) {
        const id = owner.idFor(o.path, name);
        expect(id, `no record for {${name}}: add one to populate()`).toBeTruthy();
        path = path.replace(`{${name}}`, id!);
      }
      // A valid request in every other way (the documented example body), so the 404 is the record's.
      const res = await api(o.method, path, { token: intruder.token, body: exampleBody(doc, o.op) });
      expectError(res, 404, undefined, "not_found");
    });
  }
});

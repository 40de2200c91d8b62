import { expect } from "vitest";
import { api, expectError, uniqueIp, type CallOptions } from "./http";
import { createKey } from "./factories";

/** 401 with the specification's message (docs/decisions/authentication.md) for a missing token and for a token that is not ours. */
export async function expectAuthRequired(method: string, path: string, options: CallOptions = {}) {
  const missing = await api(method, path, { ...options, token: null, ip: uniqueIp() });
  expectError(missing, 401, "Invalid or missing token", "invalid_token");
  const bogus = await api(method, path, { ...options, token: "pa_not-a-real-token", ip: uniqueIp() });
  expectError(bogus, 401, "Invalid or missing token", "invalid_token");
}

/** 403 `Token missing required scope: <scope>` for a key that holds every scope but that one. */
export async function expectScopeRequired(
  agencyUuid: string,
  method: string,
  path: string,
  scope: string,
  options: CallOptions = {},
) {
  const other = scope === "contacts" ? "fields" : "contacts";
  const { token } = await createKey(agencyUuid, { scopes: [other] });
  const res = await api(method, path, { ...options, token });
  expectError(res, 403, `Token missing required scope: ${scope}`, "insufficient_scope");
}

/**
 * Uses up a route's limit with a fresh key and checks the next request is a 429 with
 * Retry-After and the RateLimit headers. `options` may vary per request (unique bodies).
 */
export async function expectRateLimit(
  agencyUuid: string,
  method: string,
  path: string | ((i: number) => string),
  limit: number,
  options: (i: number) => CallOptions = () => ({}),
) {
  const { token } = await createKey(agencyUuid, { scopes: ["*"] });
  const pathAt = (i: number) => (typeof path === "string" ? path : path(i));
  for (let i = 0; i < limit; i++) {
    const res = await api(method, pathAt(i), { ...options(i), token });
    expect(res.status, `request ${i + 1} of ${limit}: ${JSON.stringify(res.body)}`).not.toBe(429);
    expect(res.headers.get("RateLimit-Limit")).toBe(String(limit));
    expect(res.headers.get("RateLimit-Remaining")).toBe(String(limit - i - 1));
  }
  const limited = await api(method, pathAt(limit), { ...options(limit), token });
  expectError(limited, 429, undefined, "rate_limited");
  expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect(Number(limited.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
  expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
  expect(limited.headers.get("RateLimit-Policy")).toBe(`${limit};w=60`);
}

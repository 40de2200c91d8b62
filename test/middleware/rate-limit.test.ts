import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError, uniqueIp } from "../helpers/http";
import { createKey, setupAgency } from "../helpers/factories";
import { effectiveLimit, rateLimitRule } from "@/lib/rate-limits";
import type { AccessGate } from "@/durable-objects/access-gate";

describe("rate limits", () => {
  it("admits exactly 60 of 80 parallel GETs against a limit of 60", async () => {
    const { token } = await setupAgency();
    const results = await Promise.all(Array.from({ length: 80 }, () => api("GET", "/contacts", { token })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    for (const r of results.filter((x) => x.status === 429)) expectError(r, 429, undefined, "rate_limited");
  });

  it("announces the limit in RateLimit headers on every limited response", async () => {
    const { token } = await setupAgency();
    const res = await api("GET", "/contacts", { token });
    expect(res.headers.get("RateLimit-Limit")).toBe("60");
    expect(res.headers.get("RateLimit-Remaining")).toBe("59");
    expect(res.headers.get("RateLimit-Policy")).toBe("60;w=60");
    expect(Number(res.headers.get("RateLimit-Reset"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("RateLimit-Reset"))).toBeLessThanOrEqual(60);
  });

  it("keys buckets by method and route pattern, not by concrete path", async () => {
    const { token } = await setupAgency();
    const one = await api("GET", `/contacts/${crypto.randomUUID()}`, { token });
    const two = await api("GET", `/contacts/${crypto.randomUUID()}`, { token });
    expect(one.headers.get("RateLimit-Remaining")).toBe("59");
    expect(two.headers.get("RateLimit-Remaining")).toBe("58");
    const list = await api("GET", "/contacts", { token });
    expect(list.headers.get("RateLimit-Remaining")).toBe("59");
  });

  it("counts each key separately, even within one agency", async () => {
    const { agencyUuid, token } = await setupAgency();
    const other = await createKey(agencyUuid, { scopes: ["*"] });
    await api("GET", "/contacts", { token });
    const res = await api("GET", "/contacts", { token: other.token });
    expect(res.headers.get("RateLimit-Remaining")).toBe("59");
  });

  it("scales a key's limits by its multiplier", async () => {
    const { agencyUuid } = await setupAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["*"], rate_limit_multiplier: 0.05 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await api("GET", "/contacts", { token }));
    expect(results[0]!.headers.get("RateLimit-Limit")).toBe("3");
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
  });

  it("falls back to the client IP when the token is bad", async () => {
    const ip = uniqueIp();
    const results = await Promise.all(Array.from({ length: 61 }, () => api("GET", "/contacts", { token: "pa_bad", ip })));
    expect(results.filter((r) => r.status === 401)).toHaveLength(60);
    expect(results.filter((r) => r.status === 429)).toHaveLength(1);
    expect((await api("GET", "/contacts", { token: "pa_bad", ip: uniqueIp() })).status).toBe(401);
  });

  it("frees capacity as requests leave the sliding window", async () => {
    const stub = env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`test:${crypto.randomUUID()}`));
    await runInDurableObject(stub, (limiter: AccessGate) => {
      const t0 = 1_700_000_000_000;
      expect(limiter.consume("GET /x", 2, 60, t0).allowed).toBe(true);
      expect(limiter.consume("GET /x", 2, 60, t0 + 10_000).allowed).toBe(true);
      const refused = limiter.consume("GET /x", 2, 60, t0 + 20_000);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 40 });
      // The first request leaves the window at t0 + 60s: one slot comes back.
      expect(limiter.consume("GET /x", 2, 60, t0 + 60_001)).toMatchObject({ allowed: true, remaining: 0 });
      expect(limiter.consume("GET /x", 2, 60, t0 + 60_002).allowed).toBe(false);
      expect(limiter.consume("GET /other", 2, 60, t0 + 60_002).allowed).toBe(true);
    });
  });

  it("remembers a window after its object is evicted and restarted", async () => {
    const stub = env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`test:${crypto.randomUUID()}`));
    const now = Date.now();
    await runInDurableObject(stub, (gate: AccessGate) => {
      expect(gate.consume("GET /y", 3, 60, now).remaining).toBe(2);
      expect(gate.consume("GET /y", 3, 60, now + 1).remaining).toBe(1);
    });
    await evictDurableObject(stub);
    await runInDurableObject(stub, (gate: AccessGate) => {
      expect(gate.consume("GET /y", 3, 60, now + 2).remaining).toBe(0);
      expect(gate.consume("GET /y", 3, 60, now + 3).allowed).toBe(false);
    });
  });

  it("reads the documented table (docs/decisions/rate-limits.md)", () => {
    expect(rateLimitRule("GET", "/contacts").limit).toBe(60);
    expect(rateLimitRule("POST", "/contacts").limit).toBe(30);
    expect(rateLimitRule("DELETE", "/contacts/{contact_uuid}").limit).toBe(10);
    expect(rateLimitRule("POST", "/calendar/bookings").limit).toBe(20);
    expect(rateLimitRule("POST", "/voice-ai/calls").limit).toBe(10);
    expect(rateLimitRule("GET", "/voice-ai/wallet").limit).toBe(30);
    expect(rateLimitRule("POST", "/auth/token/renew", "ip")).toMatchObject({ limit: 10, per: "ip" });
    expect(effectiveLimit(60, 0.001)).toBe(1);
    expect(effectiveLimit(60, 2.5)).toBe(150);
  });
});

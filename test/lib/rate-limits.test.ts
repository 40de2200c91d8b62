import { describe, expect, it } from "vitest";
import { effectiveLimit, RATE_LIMIT_WINDOW_SECONDS, rateLimitRule } from "@/lib/rate-limits";

describe("rateLimitRule", () => {
  it.each([
    ["GET", "/contacts", 60],
    ["GET", "/contacts/{contact_uuid}", 60],
    ["POST", "/contacts", 30],
    ["PATCH", "/contacts/{contact_uuid}", 30],
    ["PUT", "/calendar/hours", 30],
    ["DELETE", "/contacts/{contact_uuid}", 10],
    ["POST", "/appointments/{appointment_uuid}/cancel", 10],
    ["PATCH", "/users/{agent_uuid}/role", 10],
    ["DELETE", "/users/{agent_uuid}", 10],
    ["POST", "/calendar/bookings", 20],
    ["PATCH", "/lead-orders/{order_uuid}", 10],
    ["POST", "/lead-orders/{order_uuid}/pause", 10],
    ["POST", "/lead-orders/{order_uuid}/cancel", 10],
    ["POST", "/voice-ai/calls", 10],
    ["POST", "/voice-ai/calls/{call_uuid}/cancel", 10],
    ["GET", "/voice-ai/wallet", 30],
    ["POST", "/auth/token/renew", 10],
  ])("%s %s allows %i per minute (docs/decisions/rate-limits.md)", (method, path, limit) => {
    expect(rateLimitRule(method, path).limit).toBe(limit);
  });

  it("keys the bucket by upper-cased method plus route pattern", () => {
    const rule = rateLimitRule("get", "/contacts/{contact_uuid}");
    expect(rule.bucket).toBe("GET /contacts/{contact_uuid}");
    expect(rule.limit).toBe(60);
  });

  it("uses a one-minute window and counts per key unless told otherwise", () => {
    expect(RATE_LIMIT_WINDOW_SECONDS).toBe(60);
    expect(rateLimitRule("GET", "/contacts")).toMatchObject({ windowSeconds: 60, per: "key" });
    expect(rateLimitRule("POST", "/auth/token/renew", "ip").per).toBe("ip");
  });

  it("falls back to 30 for an unknown method", () => {
    expect(rateLimitRule("OPTIONS", "/contacts").limit).toBe(30);
  });

  it("does not confuse a route-specific limit with a similar path", () => {
    expect(rateLimitRule("GET", "/voice-ai/calls").limit).toBe(60);
    expect(rateLimitRule("POST", "/voice-ai/calls/{call_uuid}").limit).toBe(30);
  });
});

describe("effectiveLimit", () => {
  it("scales by the key's multiplier, rounding down", () => {
    expect(effectiveLimit(60, 1)).toBe(60);
    expect(effectiveLimit(60, 2.5)).toBe(150);
    expect(effectiveLimit(10, 0.35)).toBe(3);
    expect(effectiveLimit(10, 1000)).toBe(10_000);
  });

  it("never drops below one request", () => {
    expect(effectiveLimit(10, 0.01)).toBe(1);
    expect(effectiveLimit(10, 0)).toBe(1);
  });
});

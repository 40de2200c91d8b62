import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "@/middleware/create-app";
import { admin, api, call } from "../helpers/http";
import { setupAgency } from "../helpers/factories";

const expectSecurityHeaders = (headers: Headers) => {
  expect(headers.get("X-Content-Type-Options")).toBe("nosniff");
  expect(headers.get("Strict-Transport-Security")).toBe("max-age=31536000; includeSubDomains");
};

describe("security headers", () => {
  it("are on a 200, a 4xx and a 5xx, with no-store on authenticated responses", async () => {
    const { token } = await setupAgency();
    const ok = await api("GET", "/contacts", { token });
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok.headers);
    expect(ok.headers.get("Cache-Control")).toBe("no-store");

    const missing = await api("GET", "/contacts/not-a-uuid", { token });
    expect(missing.status).toBe(400);
    expectSecurityHeaders(missing.headers);
    expect(missing.headers.get("Cache-Control")).toBe("no-store");
    const unauthenticated = await api("GET", "/contacts", { token: null });
    expect(unauthenticated.status).toBe(401);
    expectSecurityHeaders(unauthenticated.headers);

    const app = createApp();
    app.get("/crash", () => {
      throw new Error("boom");
    });
    const crash = await app.fetch(new Request("https://x.test/crash", { headers: { Authorization: "Bearer x" } }), { ...env, LOG_LEVEL: "silent" }, createExecutionContext());
    expect(crash.status).toBe(500);
    expectSecurityHeaders(crash.headers);
    expect(crash.headers.get("Cache-Control")).toBe("no-store");

    // The public document may be cached.
    const doc = await api("GET", "/openapi.json");
    expectSecurityHeaders(doc.headers);
    expect(doc.headers.get("Cache-Control")).toBeNull();
  });
});

describe("CORS", () => {
  it("answers a Partner API preflight 204 with the allowed methods and headers, for any origin", async () => {
    const res = await call("OPTIONS", "/api/v2/contacts", {
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, idempotency-key" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Allow-Methods")).toBe("GET,POST,PUT,PATCH,DELETE,OPTIONS");
    expect(res.headers.get("Access-Control-Allow-Headers")).toBe("Authorization,Content-Type,Idempotency-Key,X-D1-Bookmark,X-Request-Id");
    expect(res.headers.get("Access-Control-Max-Age")).toBe("86400");
  });

  it("lets a browser read the rate-limit and request-id headers of a Partner API response", async () => {
    const { token } = await setupAgency();
    const res = await api("GET", "/contacts", { token, headers: { Origin: "https://app.example.com" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Expose-Headers")).toBe(
      "RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,RateLimit-Policy,Retry-After,X-Request-Id,X-D1-Bookmark",
    );
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("allows no origin on the operator API", async () => {
    const preflight = await call("OPTIONS", "/admin/v1/agencies", { headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST" } });
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const res = await admin("GET", "/agencies");
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expectSecurityHeaders(res.headers);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });
});

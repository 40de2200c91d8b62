import { TEST_SHARDS } from "./helpers/shards";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import { createApp } from "@/middleware/create-app";
import { ApiError } from "@/lib/errors";
import { api, call, expectError } from "./helpers/http";
import { createKey, setupAgency, setupAgencyOn } from "./helpers/factories";

describe("request context and the error envelope", () => {
  it("generates an X-Request-Id when none is sent", async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("echoes a sane incoming X-Request-Id and replaces an unsafe one", async () => {
    const echoed = await api("GET", "/openapi.json", { headers: { "X-Request-Id": "partner-req-42" } });
    expect(echoed.headers.get("X-Request-Id")).toBe("partner-req-42");
    const replaced = await api("GET", "/openapi.json", { headers: { "X-Request-Id": "bad id <script>" } });
    expect(replaced.headers.get("X-Request-Id")).not.toBe("bad id <script>");
  });

  it("answers an unknown route with a JSON 404 envelope", async () => {
    const res = await call("GET", "/api/v2/nope");
    expectError(res, 404, "Route not found", "not_found");
  });

  it("renders a thrown ApiError with its status, code and headers", async () => {
    const app = createApp();
    app.get("/boom", () => {
      throw new ApiError("conflict", "Already done", { headers: { "X-Extra": "1" } });
    });
    const res = await app.fetch(new Request("https://x.test/boom"), env, createExecutionContext());
    expect(res.status).toBe(409);
    expect(res.headers.get("X-Extra")).toBe("1");
    expect(await res.json()).toEqual({ success: false, error: "Already done", code: "conflict" });
  });

  it("hides an unexpected error behind a 500 that carries the request id", async () => {
    const app = createApp();
    app.get("/crash", () => {
      throw new Error("secret internals");
    });
    const res = await app.fetch(
      new Request("https://x.test/crash", { headers: { "X-Request-Id": "trace-1" } }),
      { ...env, LOG_LEVEL: "silent" },
      createExecutionContext(),
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ success: false, error: "Internal server error", code: "internal_error", request_id: "trace-1" });
    expect(JSON.stringify(body)).not.toContain("secret internals");
  });

  it("returns a D1 bookmark, tagged with the agency's shard, that a client can send back to read its own writes", async () => {
    for (const { name } of TEST_SHARDS) {
      const { token } = await setupAgencyOn(name);
      const created = await api("POST", "/fields", { token, body: { key: "budget", label: "Budget", type: "number" } });
      expect(created.status).toBe(201);
      const bookmark = created.headers.get("X-D1-Bookmark");
      expect(bookmark).toMatch(new RegExp(`^${name}:[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$`));
      const read = await api("GET", "/fields", { token, headers: { "X-D1-Bookmark": bookmark! } });
      expect(read.status).toBe(200);
      expect(read.body.fields.map((f: { key: string }) => f.key)).toEqual(["budget"]);
      expect(read.headers.get("X-D1-Bookmark")).toMatch(new RegExp(`^${name}:[0-9a-f]{8}-`));
    }
  });

  it("returns a bookmark with every answer that reached the agency's data, and none with those the key's gate gave alone", async () => {
    const { agencyUuid, token } = await setupAgencyOn("DB_EU");
    expect((await api("GET", `/contacts/${crypto.randomUUID()}`, { token })).headers.get("X-D1-Bookmark")).toMatch(/^DB_EU:/);
    expect((await api("GET", "/contacts", { token: "pa_nope" })).headers.get("X-D1-Bookmark")).toBeNull();
    const { token: fieldsOnly } = await createKey(agencyUuid, { scopes: ["fields"] });
    const forbidden = await api("GET", "/contacts", { token: fieldsOnly });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("X-D1-Bookmark")).toBeNull();
  });

  it("ignores a bookmark of another shard, or one without a shard (from before shards), instead of refusing it", async () => {
    const eu = await setupAgencyOn("DB_EU");
    const us = await setupAgencyOn("DB");
    const usBookmark = (await api("POST", "/fields", { token: us.token, body: { key: "budget", label: "Budget", type: "number" } })).headers.get("X-D1-Bookmark")!;
    expect(usBookmark).toMatch(/^DB:/);
    for (const sent of [usBookmark, usBookmark.slice("DB:".length)]) {
      const read = await api("GET", "/fields", { token: eu.token, headers: { "X-D1-Bookmark": sent } });
      expect(read.status, sent).toBe(200);
      expect(read.body.fields).toEqual([]);
      expect(read.headers.get("X-D1-Bookmark")).toMatch(/^DB_EU:/);
    }
  });

  it("rejects a malformed bookmark with 400 before it reaches D1", async () => {
    const { token } = await setupAgency();
    const res = await api("GET", "/fields", { token, headers: { "X-D1-Bookmark": "not-a-bookmark" } });
    expectError(res, 400, "X-D1-Bookmark must be a bookmark returned by this API", "validation_error");
    const unknownShard = await api("GET", "/fields", { token, headers: { "X-D1-Bookmark": "shard9:00000000-00000004-00000000-00000000000000000000000000000000" } });
    expectError(unknownShard, 400, "X-D1-Bookmark must be a bookmark returned by this API", "validation_error");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("answers /health without authentication or storage", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status: "ok" });
  });

  it("reports D1 rows read per request only when benchmark metrics are on", async () => {
    const { token } = await setupAgency();
    expect((await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace" } })).status).toBe(201);
    const request = () =>
      new Request("https://x.test/api/v2/contacts?limit=5", {
        headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" },
      });
    const off = await app.fetch(request(), env, createExecutionContext());
    expect(off.headers.get("X-Bench-Rows-Read")).toBeNull();
    const on = await app.fetch(request(), { ...env, BENCH_METRICS: "on" }, createExecutionContext());
    expect(on.status).toBe(200);
    expect(Number(on.headers.get("X-Bench-Rows-Read"))).toBeGreaterThanOrEqual(1);
    expect(off.headers.get("X-Bench-Rows-Written")).toBeNull();
    // A read writes nothing; a create writes its row, its event and what their triggers keep.
    expect(on.headers.get("X-Bench-Rows-Written")).toBe("0");
    const create = new Request("https://x.test/api/v2/contacts", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1", "Content-Type": "application/json" },
      body: JSON.stringify({ first_name: "Grace", last_name: "Hopper" }),
    });
    const created = await app.fetch(create, { ...env, BENCH_METRICS: "on" }, createExecutionContext());
    expect(created.status).toBe(201);
    expect(Number(created.headers.get("X-Bench-Rows-Written"))).toBeGreaterThanOrEqual(2);
  });
});

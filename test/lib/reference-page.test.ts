import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "@/middleware/create-app";
import { REFERENCE_PAGE_CSP } from "@/lib/reference-page";
import { STRICT_CSP } from "@/middleware/security-headers";
import { BASE, call } from "../helpers/http";

// The page's scripts are static assets, served before the Worker runs; this pool calls the Worker
// itself and never reaches them, so test/browser/api-reference.spec.ts checks those responses
// (200, JavaScript, the security headers, the bundle identical to the pinned package's).
describe("the API reference page", () => {
  it("answers HTML with the page's strict CSP and the security headers", async () => {
    const res = await call<string>("GET", "/api/v2/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("Content-Security-Policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; " +
        "form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get("Content-Security-Policy")).toBe(REFERENCE_PAGE_CSP);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Strict-Transport-Security")).toBe("max-age=31536000; includeSubDomains");
  });

  it("has no inline script: every script is loaded from this origin, in order, setup first", async () => {
    const { body } = await call<string>("GET", "/api/v2/docs");
    const scripts = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].map(([, attributes, content]) => ({
      src: /\ssrc="([^"]*)"/.exec(attributes!)?.[1],
      type: /\stype="([^"]*)"/.exec(attributes!)?.[1],
      content: content!.trim(),
    }));
    // Scalar's configuration block: JSON data, which browsers never run.
    const data = scripts.filter((s) => s.src === undefined);
    expect(data).toEqual([{ src: undefined, type: "application/json", content: "" }]);

    const sources = scripts.flatMap((s) => (s.src === undefined ? [] : [s.src]));
    expect(sources).toEqual(["/reference-page.js", "/scalar/standalone.js"]);
    for (const src of sources) expect(new URL(src, BASE).origin).toBe(new URL(BASE).origin);
    expect(body).not.toMatch(/\son[a-z]+=/i);
  });

  it("points Scalar at the document, with fonts, telemetry and Scalar's hosted services off", async () => {
    const { body } = await call<string>("GET", "/api/v2/docs");
    expect(body).toContain('data-url="/api/v2/openapi.json"');
    const encoded = /data-configuration="([^"]*)"/.exec(body)?.[1] ?? "";
    const configuration = JSON.parse(encoded.replaceAll("&quot;", '"').replaceAll("&amp;", "&"));
    expect(configuration).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    expect(body).not.toMatch(/https?:\/\//);
  });

  it("gives any other HTML page the strict default CSP", async () => {
    const app = createApp();
    app.get("/page", (c) => c.html("<!doctype html><p>hi</p>"));
    const res = await app.fetch(new Request(`${BASE}/page`), { ...env, LOG_LEVEL: "silent" }, createExecutionContext());
    expect(res.headers.get("Content-Security-Policy")).toBe(STRICT_CSP);
    expect(STRICT_CSP).toContain("frame-ancestors 'none'");
    expect(STRICT_CSP).not.toContain("unsafe");
    const json = await app.fetch(new Request(`${BASE}/missing`), { ...env, LOG_LEVEL: "silent" }, createExecutionContext());
    expect(json.headers.get("Content-Security-Policy")).toBeNull();
  });
});

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect, test } from "./fixtures";

interface Operation {
  method: string;
  summary: string;
  tag: string;
}

interface OpenApiDocument {
  tags: { name: string }[];
  paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
}

const HTTP_METHODS = new Set(["get", "post", "put", "patch", "delete"]);

function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), summary: op.summary ?? "", tag: op.tags?.[0] ?? "" })),
  );
}

/** One operation from each of `count` tags spread evenly over the document's tags (the middle one of its tag). */
function sampleOperations(document: OpenApiDocument, count: number): Operation[] {
  const operations = operationsOf(document);
  const tags = document.tags.map((t) => t.name).filter((name) => operations.some((op) => op.tag === name));
  const picked = [...new Set(Array.from({ length: count }, (_, i) => tags[Math.round((i * (tags.length - 1)) / (count - 1))]!))];
  return picked.map((tag) => {
    const ofTag = operations.filter((op) => op.tag === tag);
    return ofTag[Math.floor(ofTag.length / 2)]!;
  });
}

/** The installed @scalar/api-reference: its version and the bytes of its browser bundle. */
function pinnedScalar() {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("@scalar/api-reference"));
  while (!dir.endsWith(join("@scalar", "api-reference"))) dir = dirname(dir);
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  const bundle = readFileSync(join(dir, "dist", "browser", "standalone.js"));
  return { version, sha256: createHash("sha256").update(bundle).digest("hex") };
}

test.describe("the API reference page (/api/v2/docs)", () => {
  test("serves its scripts itself, as JavaScript with the security headers, the bundle byte for byte the pinned package's", async ({ request }) => {
    const { version, sha256 } = pinnedScalar();
    const { dependencies } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(dependencies["@scalar/api-reference"], "an exact version, not a range").toBe(version);

    for (const path of ["/scalar/standalone.js", "/reference-page.js"]) {
      const res = await request.get(path);
      expect(res.status(), path).toBe(200);
      expect(res.headers()["content-type"], path).toMatch(/^(text|application)\/javascript\b/);
      expect(res.headers()["x-content-type-options"], path).toBe("nosniff");
      expect(res.headers()["strict-transport-security"], path).toBe("max-age=31536000; includeSubDomains");
      if (path === "/scalar/standalone.js") expect(createHash("sha256").update(await res.body()).digest("hex")).toBe(sha256);
    }
  });

  test("renders every tag and sampled operations from this server alone, with no CSP violation", async ({
    page,
    request,
    externalRequests,
    cspViolations,
  }, testInfo) => {
    const document = (await (await request.get("/api/v2/openapi.json")).json()) as OpenApiDocument;
    const tags = document.tags.map((t) => t.name);
    const sample = sampleOperations(document, 5);
    expect(tags.length).toBeGreaterThan(5);
    expect(new Set(sample.map((op) => op.tag)).size).toBe(5);

    const response = await page.goto("/api/v2/docs");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");

    const sidebar = page.getByRole("complementary", { name: "Sidebar for Partner API" });
    for (const tag of tags) await expect(sidebar.getByRole("link", { name: tag, exact: true }), tag).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("api-reference.png") });

    for (const op of sample) {
      // A tag's operations are listed once its group is open; the first is open from the start.
      const open = sidebar.getByRole("button", { name: `Open Group - ${op.tag}`, exact: true });
      if (await open.isVisible()) await open.click();
      // Scalar names each entry "<summary> HTTP Method: <METHOD>" for screen readers.
      const entry = sidebar.getByRole("link", { name: `${op.summary} HTTP Method: ${op.method}`, exact: true });
      await expect(entry, `${op.tag}: ${op.summary}`).toBeVisible();
      await entry.click();
      await expect(page.getByRole("heading", { level: 3, name: op.summary, exact: true }), `${op.tag}: ${op.summary}`).toBeVisible();
    }

    expect(externalRequests, "requests to other hosts").toEqual([]);
    expect(cspViolations, "Content Security Policy violations").toEqual([]);
  });
});

import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const bin = (name: string) => join("node_modules", ".bin", name);

interface SpectralResult {
  code: string;
  severity: number;
  path: (string | number)[];
  message: string;
}

/** Lints a document with the project's ruleset (.spectral.yaml), as `npm run openapi:lint` does. */
async function lint(file: string): Promise<SpectralResult[]> {
  // Spectral exits 1 when it finds errors; its JSON report is on stdout either way.
  const output = await run(bin("spectral"), ["lint", file, "--ruleset", ".spectral.yaml", "--format", "json", "--quiet"]).catch(
    (failure: { stdout?: string }) => ({ stdout: failure.stdout ?? "" }),
  );
  return JSON.parse(output.stdout) as SpectralResult[];
}

const errorsOf = (results: SpectralResult[]) =>
  results.filter((r) => r.severity === 0).map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`);

describe("the OpenAPI document against the OWASP API Security ruleset", () => {
  it("has no errors under spectral:oas plus the OWASP Top 10 rules", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "openapi-")), "openapi.json");
    await run(bin("tsx"), ["scripts/export-openapi.ts", file]);
    expect(errorsOf(await lint(file))).toEqual([]);
  });

  it("is linted by a ruleset that does report an unbounded string and an unguarded write", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "openapi-")), "bad.json");
    const document = {
      openapi: "3.0.3",
      info: { title: "Bad", version: "1.0.0", description: "A document that breaks the rules." },
      servers: [{ url: "https://api.example.com", description: "production", "x-internal": false }],
      paths: {
        "/things": {
          post: {
            operationId: "createThing",
            summary: "Create a thing",
            description: "Takes any string.",
            tags: ["Things"],
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } } } } } },
            responses: { "204": { description: "Created." } },
          },
        },
      },
      tags: [{ name: "Things", description: "Things." }],
    };
    writeFileSync(file, JSON.stringify(document));
    const codes = new Set((await lint(file)).filter((r) => r.severity === 0).map((r) => r.code));
    expect(codes).toContain("owasp:api4:2023-string-limit");
    expect(codes).toContain("owasp:api2:2023-write-restricted");
  });
});

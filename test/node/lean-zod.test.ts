import * as zod from "zod";
import * as zodCore from "zod/v4/core";
import { describe, expect, it } from "vitest";
import * as lean from "../../build/zod.mjs";
import * as leanCore from "../../build/zod-core.mjs";

/**
 * build/zod.mjs is what `zod` is in the deployed bundle (wrangler.toml `[alias]`); the tests in
 * workerd resolve zod itself. These checks make the two the same library: every member the
 * lean namespace keeps is zod's own object, and only the listed ones are left out.
 */
const DROPPED = ["locales", "compile", "withParser", "INVALID", "ZodCompileAsyncError", "ZodCompileUnsupportedError", "fromJSONSchema"];
const DROPPED_FROM_CORE = ["locales", "compile", "compileFn", "withParser", "INVALID", "ZodCompileAsyncError", "ZodCompileUnsupportedError"];

function compare(real: Record<string, unknown>, kept: Record<string, unknown>, dropped: string[], own: string[]) {
  expect(Object.keys(kept).sort()).toEqual(Object.keys(real).sort());
  for (const name of dropped) {
    expect(real[name], `zod has ${name}`).toBeDefined();
    expect(kept[name], `${name} is left out`).toBeUndefined();
  }
  const differing = Object.keys(real).filter((name) => !dropped.includes(name) && !own.includes(name) && kept[name] !== real[name]);
  expect(differing).toEqual([]);
}

describe("the bundle's zod (build/zod.mjs)", () => {
  it("is zod's namespace less the locales, the schema compiler and the JSON Schema importer", () => {
    compare(zod, lean, DROPPED, ["z", "default", "core"]);
    expect(lean.z).toBe(lean);
    expect(lean.default).toBe(lean);
    expect(lean.core).toBe(leanCore);
  });

  it("keeps all of zod/v4/core but the same parts", () => {
    compare(zodCore, leanCore, DROPPED_FROM_CORE, []);
  });

  it("reports issues in zod's English messages", () => {
    const schema = lean.z.object({ name: lean.z.string().max(3), age: lean.z.number().int() }).strict();
    const result = schema.safeParse({ name: "Quinn", age: 1.5, extra: true });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message)).toEqual([
      "Too big: expected string to have <=3 characters",
      "Invalid input: expected int, received number",
      'Unrecognized key: "extra"',
    ]);
  });
});

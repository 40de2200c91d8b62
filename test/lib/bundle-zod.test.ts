import { z } from "@hono/zod-openapi";
import * as zod from "zod";
import { describe, expect, it } from "vitest";

/**
 * The Worker's zod is build/zod.mjs (wrangler.toml `[alias]`); vitest.config.ts gives the tests
 * in workerd the same one, so every test of a route runs the validation the deployment runs.
 */
describe("zod in workerd tests", () => {
  it("is the bundle's: zod without its locales, English messages kept", () => {
    expect(z).toBe(zod.z);
    expect((zod as Record<string, unknown>).locales).toBeUndefined();
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
  });
});

import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { documentedNullable, withTypedNullables } from "@/lib/openapi";

/** Builds a 3.0.3 document with one route whose 200 body is `schema`, after the nullable fix. */
function documentFor(schema: z.ZodType) {
  const app = new OpenAPIHono();
  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      responses: { 200: { description: "ok", content: { "application/json": { schema: schema.openapi("Body") } } } },
    }),
    (c) => c.json({} as never, 200),
  );
  const doc = withTypedNullables(app.getOpenAPIDocument({ openapi: "3.0.3", info: { title: "t", version: "1" } }));
  return doc.components!.schemas!.Body as Record<string, any>;
}

/** Every schema object in `node` that carries `nullable` must also carry `type` (OAS 3.0.3). */
function typelessNullables(node: unknown, path = "#"): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => typelessNullables(item, `${path}/${i}`));
  if (typeof node !== "object" || node === null) return [];
  const own = "nullable" in node && !("type" in node) ? [path] : [];
  return [...own, ...Object.entries(node).flatMap(([k, v]) => typelessNullables(v, `${path}/${k}`))];
}

describe("withTypedNullables", () => {
  it("turns an unknown value ({ nullable: true }) into any value ({})", () => {
    const body = documentFor(z.object({ anything: z.unknown(), map: z.record(z.string(), z.unknown()) }));
    expect(body.properties.anything).toEqual({});
    expect(body.properties.map.additionalProperties).toEqual({});
    expect(typelessNullables(body)).toEqual([]);
  });

  it("moves the null member of a union onto the union, with the members' common type", () => {
    const body = documentFor(z.object({ status: z.union([z.literal("a"), z.literal("b")]).nullable() }));
    const status = body.properties.status;
    expect(status.nullable).toBe(true);
    expect(status.type).toBe("string");
    expect(status.anyOf ?? status.oneOf ?? [status]).not.toContainEqual({ nullable: true });
  });

  it("leaves typed nullables and examples alone", () => {
    const body = documentFor(
      z.object({ at: z.string().nullable() }).openapi({ example: { at: null, nested: { nullable: true } } as never }),
    );
    expect(body.properties.at).toEqual({ type: "string", nullable: true });
    expect(body.example).toEqual({ at: null, nested: { nullable: true } });
  });
});

describe("documentedNullable", () => {
  it("puts back the nullable that zod-to-openapi drops from a nullable transform", () => {
    const field = z
      .string()
      .transform((v) => v.toLowerCase())
      .nullable()
      .optional()
      .openapi({ ...documentedNullable, type: "string" });
    const body = documentFor(z.object({ field }));
    expect(body.properties.field).toMatchObject({ type: "string", nullable: true });
  });
});

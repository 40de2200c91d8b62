import { z } from "@hono/zod-openapi";
import type { RouteConfig } from "@hono/zod-openapi";
import { getOpenApiMetadata } from "@asteasolutions/zod-to-openapi";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "@/lib/request-headers";

type Shape = Record<string, z.ZodType>;

const shapeOf = (schema: unknown): Shape => {
  if (schema === undefined) return {};
  if (schema instanceof z.ZodObject) return schema.shape as Shape;
  throw new Error("An MCP tool's route takes its parameters, query and body as objects");
};

const bodySchemaOf = (route: RouteConfig): unknown =>
  (route.request?.body?.content as Record<string, { schema?: unknown }> | undefined)?.["application/json"]?.schema;

/** What the route's `.openapi()` metadata says of a field: always, and where zod's own type stands alone. */
const DESCRIBING = ["description", "default"] as const;
const TYPING = ["type", "minimum", "maximum", "enum"] as const;

/**
 * zod's JSON Schema of a tool's input, completed with what the OpenAPI document says of
 * each field (its description, and the integer a query string carries), so an agent reads
 * the same field documentation as the docs page.
 */
function jsonSchemaOf(schema: z.ZodType) {
  return z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const documented = getOpenApiMetadata(zodSchema as unknown as z.ZodType) as Record<string, unknown>;
      const target = jsonSchema as Record<string, unknown>;
      // A query string's integer is a string to zod; the document (and an agent) sees the integer.
      // A nullable field keeps zod's anyOf, so null stays allowed.
      const keywords = typeof target.type === "string" ? [...DESCRIBING, ...TYPING] : DESCRIBING;
      for (const keyword of keywords) if (documented[keyword] !== undefined) target[keyword] = documented[keyword];
      if (documented.example !== undefined) jsonSchema.examples = [documented.example];
    },
  }) as Record<string, unknown>;
}

/** Where each argument of a tool goes in the request to its route. */
export interface ArgumentPlaces {
  path: readonly string[];
  query: readonly string[];
  body: readonly string[];
}

export const idempotencyKeyArgument = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .optional()
  .describe(
    "Leave it out to have a repeat of this exact call (same arguments) within 24 hours answered with the first call's result instead of " +
      "acting twice. Pass a new value to do the same thing again on purpose.",
  );

/**
 * A tool's input: the route's own path parameters, query and body schemas side by side, so
 * the tool documents exactly what the route takes, as JSON Schema (draft 2020-12, what MCP
 * hosts read). Checking is the route's job: the call is checked where a partner's would be, so
 * a bad argument gets the API's own message (`first_name is required`), not a second wording
 * of it. `refine` documents an argument more closely than the route's schema can (a body whose
 * items the handler checks one by one).
 */
export function toolInput(
  route: RouteConfig,
  options: { idempotent: boolean; refine?: Shape },
): { inputSchema: () => Record<string, unknown>; places: ArgumentPlaces } {
  const path = shapeOf(route.request?.params);
  const query = shapeOf(route.request?.query);
  const body = shapeOf(bodySchemaOf(route));
  const documented = z.object({
    ...path,
    ...query,
    ...body,
    ...options.refine,
    ...(options.idempotent ? { idempotency_key: idempotencyKeyArgument } : {}),
  });
  // Converted on the first tools/list of the isolate, then kept: it never changes.
  let converted: Record<string, unknown> | undefined;
  const inputSchema = () => (converted ??= jsonSchemaOf(documented));
  return { inputSchema, places: { path: Object.keys(path), query: Object.keys(query), body: Object.keys(body) } };
}

/** Reading the generated OpenAPI document: its operations, schemas and examples. */

export type Json = Record<string, any>;

/** Every HTTP method an OpenAPI path item can hold. */
export const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface Operation {
  /** Upper case: `GET`. */
  method: string;
  path: string;
  /** `GET /contacts`. */
  key: string;
  op: Json;
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: Json): Operation[] {
  return Object.entries((doc.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
    OPERATION_METHODS.filter((m) => item?.[m]).map((m) => ({ method: m.toUpperCase(), path, key: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
  );
}

/** Follows `$ref`s (and a single-member `allOf`) to the schema they name; `{}` when there is none. */
export function resolveSchema(doc: Json, schema: Json | undefined, depth = 0): Json {
  if (!schema || depth > 10) return {};
  if (typeof schema.$ref === "string") return resolveSchema(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!], depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return { ...schema, ...resolveSchema(doc, schema.allOf[0], depth + 1) };
  return schema;
}

/**
 * The documented example of a JSON request body: on the media type, else on the resolved
 * schema, else on the (unresolved) schema, else `{}`; `undefined` when the operation takes no JSON body.
 */
export function exampleBody(doc: Json, op: Json): unknown {
  const media = op.requestBody?.content?.["application/json"];
  if (!media) return undefined;
  return media.example ?? resolveSchema(doc, media.schema).example ?? media.schema?.example ?? {};
}

/** A public operation declares `security: []`; every other one needs a bearer token. */
export const isPublic = (op: Json): boolean => Array.isArray(op.security) && op.security.length === 0;

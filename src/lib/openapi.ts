import { z } from "@hono/zod-openapi";
import { ERROR_LIMITS, errorStatus, messages, type ErrorCode } from "@/lib/errors";
import { RATE_LIMIT_WINDOW_SECONDS } from "@/lib/rate-limits";
import { BOOKMARK_HEADER, BOOKMARK_LENGTH, BOOKMARK_PATTERN } from "@/lib/request-headers";
import { integerFormat } from "@/lib/bounded";

export const BEARER_SCHEME = "bearerAuth";
/** Connected apps' OAuth 2.1 (docs/decisions/connected-apps.md): each operation names the scopes a token may carry for it. */
export const OAUTH_SCHEME = "oauth2";

export const ErrorSchema = z
  .object({
    success: z.literal(false),
    error: z
      .string()
      .max(ERROR_LIMITS.message)
      .openapi({ description: "Human-readable message; safe to show to a developer." }),
    code: z
      .enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]])
      .openapi({ description: "Stable machine-readable code. `token_expired` means: renew the token." }),
    details: z
      .array(z.object({ field: z.string().max(ERROR_LIMITS.field), message: z.string().max(ERROR_LIMITS.message) }))
      .max(ERROR_LIMITS.details)
      .optional()
      .openapi({ description: `Every validation problem (the first ${ERROR_LIMITS.details}), when there is more than one thing to fix.` }),
    request_id: z.string().max(128).optional().openapi({ description: "Present on 500s; quote it to support." }),
  })
  .openapi("Error");

export type ErrorExample = { description: string; code: ErrorCode; error: string };

export const errorExamples: Record<number, ErrorExample> = {
  400: { description: "Invalid parameters or body.", code: "validation_error", error: "limit must be a whole number from 1 to 100" },
  401: { description: "Missing, invalid, revoked or expired token. An expired token carries `code: token_expired`.", code: "invalid_token", error: messages.invalidToken },
  402: { description: "The wallet has no balance.", code: "insufficient_funds", error: "Insufficient wallet balance" },
  403: { description: "The token lacks the required scope.", code: "insufficient_scope", error: messages.missingScope("contacts") },
  404: { description: "Not found for this agency.", code: "not_found", error: "Contact not found" },
  409: { description: "Conflicts with the current state.", code: "conflict", error: "Conflict" },
  413: {
    description: "The body is larger than 1 MiB, decided from Content-Length before reading, or while reading a body sent without one.",
    code: "payload_too_large",
    error: messages.payloadTooLarge,
  },
  429: { description: "Rate limit exceeded; see Retry-After.", code: "rate_limited", error: messages.rateLimited },
  500: { description: "Unexpected server error; the body carries a request_id.", code: "internal_error", error: messages.internal },
};

export const bookmarkHeader = z
  .string()
  .max(BOOKMARK_LENGTH)
  .optional()
  .openapi({
    param: { name: BOOKMARK_HEADER, in: "header" },
    pattern: BOOKMARK_PATTERN.source,
    description:
      "Read your own writes. Reads may be served by a nearby read replica; every response returns an `X-D1-Bookmark`, " +
      "and a request that sends it back is served from data at least that fresh. A bookmark names the database it " +
      "came from; one of another database (after the agency moved) is ignored, not refused.",
    example: "DB:00000000-00000004-00000000-00000000000000000000000000000000",
  });

const intHeader = (description: string, max: number) => ({
  description,
  schema: { type: "integer" as const, format: integerFormat(0, max), minimum: 0, maximum: max },
});

// The table's largest limit times the largest multiplier the operator API accepts, rounded up.
const MAX_DOCUMENTED_LIMIT = 1_000_000;

/** What the guard's rate limit check sets (src/middleware/rate-limit.ts). */
const rateLimitHeaders = {
  "RateLimit-Limit": intHeader(
    "Requests allowed in the window. The RateLimit headers are sent once a request reaches its rate limit check: on " +
      "every 2xx, and on every 4xx except a 413 and a 400 for a malformed `X-D1-Bookmark`, which are refused before it.",
    MAX_DOCUMENTED_LIMIT,
  ),
  "RateLimit-Remaining": intHeader("Requests left in the window.", MAX_DOCUMENTED_LIMIT),
  "RateLimit-Reset": intHeader("Seconds until the window frees capacity.", RATE_LIMIT_WINDOW_SECONDS),
  "RateLimit-Policy": {
    description: "The policy, e.g. `60;w=60`: the limit and the window in seconds.",
    schema: { type: "string" as const, maxLength: 32, pattern: "^\\d+;w=\\d+$" },
  },
};

/** Set on every response before anything can fail (src/middleware/request-context.ts). */
const requestIdHeader = {
  "X-Request-Id": {
    description: "The request's id: the caller's `X-Request-Id` when it is 1 to 128 plain characters, else a new UUID. Quote it to support.",
    schema: { type: "string" as const, maxLength: 128, pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  },
};

/** Every Partner API response allows any origin (src/middleware/security-headers.ts). */
const corsHeader = {
  "Access-Control-Allow-Origin": {
    description: "`*`: bearer tokens, never cookies, so any web origin may call the API.",
    schema: { type: "string" as const, enum: ["*"] },
  },
};

const bookmarkResponseHeader = {
  [BOOKMARK_HEADER]: {
    description:
      "Bookmark of the data this response saw, tagged with the agency's database; send it back to read your own writes. " +
      "On an error, present when the request got as far as the agency's data.",
    schema: { type: "string" as const, maxLength: BOOKMARK_LENGTH, pattern: BOOKMARK_PATTERN.source },
  },
};

/**
 * The headers a response documents, by status: every response carries the request id and the
 * CORS origin; every response that passed the guard's rate limit check (all 2xx, and every 4xx
 * except a malformed X-D1-Bookmark or an oversized body, refused before it) carries the
 * RateLimit headers; those that reached the agency's database (not a 401, 403 or 429, answered
 * by the key's gate alone) its bookmark; a 429 also carries Retry-After.
 */
function responseHeaders(status: number) {
  if (status >= 500) return { ...requestIdHeader, ...corsHeader };
  const bookmark = status === 401 || status === 403 || status === 429 ? {} : bookmarkResponseHeader;
  const headers = { ...rateLimitHeaders, ...bookmark, ...requestIdHeader, ...corsHeader };
  if (status !== 429) return headers;
  return { ...headers, "Retry-After": intHeader("Seconds to wait before retrying.", RATE_LIMIT_WINDOW_SECONDS) };
}

/** zod-to-openapi drops `nullable` for a nullable transform, and its metadata type does not list
 * `nullable`; `.openapi(documentedNullable)` puts it back in the document. */
export const documentedNullable = { nullable: true } as unknown as { description?: string };

/** The documented error responses of a route; `examples` overrides the default message. */
export function errorResponses(statuses: number[], overrides: Partial<Record<number, Partial<ErrorExample>>> = {}) {
  return Object.fromEntries(
    statuses.map((status) => {
      const base = { ...errorExamples[status]!, ...overrides[status] };
      return [
        status,
        {
          description: base.description,
          headers: responseHeaders(status),
          content: {
            "application/json": {
              schema: ErrorSchema,
              example: { success: false, error: base.error, code: base.code },
            },
          },
        },
      ];
    }),
  );
}

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  headers: responseHeaders(200),
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { "application/json": { schema } },
});

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const COMPOSITIONS = ["allOf", "anyOf", "oneOf"] as const;

/**
 * OpenAPI 3.0 has no null type, so zod-to-openapi writes `{ nullable: true }` with no `type`
 * for `z.unknown()`/`z.any()` (the values of a loose object) and as the null member of a
 * nullable `$ref` or union (`allOf: [{ $ref }, { nullable: true }]`). OAS 3.0.3 says
 * `nullable` without `type` has no effect, and redocly rejects it (nullable-type-sibling).
 * This rewrites those shapes into valid 3.0.3: the null member becomes `nullable: true`
 * (plus the members' common `type`) on the composition, and a bare `{ nullable: true }`
 * becomes `{}` (any value). Returns the same document, changed in place.
 */
export function withTypedNullables<T>(document: T): T {
  const schemas = (isObject(document) && isObject(document.components) && isObject(document.components.schemas)
    ? document.components.schemas
    : {}) as JsonObject;
  const typeOf = (schema: unknown, seen = new Set<string>()): unknown => {
    if (!isObject(schema)) return undefined;
    if (typeof schema.$ref === "string") {
      const name = schema.$ref.replace("#/components/schemas/", "");
      if (seen.has(name)) return undefined;
      return typeOf(schemas[name], new Set([...seen, name]));
    }
    if (schema.type !== undefined) return schema.type;
    for (const key of COMPOSITIONS) {
      const members = schema[key];
      if (!Array.isArray(members) || members.length === 0) continue;
      const types = new Set(members.map((m) => typeOf(m, seen)));
      if (types.size === 1) return [...types][0];
    }
    return undefined;
  };
  const isBareNull = (value: unknown) => isObject(value) && value.nullable === true && Object.keys(value).length === 1;

  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    for (const key of COMPOSITIONS) {
      const members = node[key];
      if (!Array.isArray(members) || !members.some(isBareNull)) continue;
      node[key] = members.filter((m) => !isBareNull(m));
      node.nullable = true;
    }
    for (const [key, value] of Object.entries(node)) {
      // Examples are data, not schemas.
      if (key !== "example" && key !== "examples") visit(value);
    }
    if (!("nullable" in node) || "type" in node) return;
    const type = typeOf(node);
    if (type !== undefined) node.type = type;
    else if (!COMPOSITIONS.some((key) => key in node) && !("$ref" in node)) delete node.nullable;
  };
  visit(document);
  return document;
}

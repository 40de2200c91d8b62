import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Scope } from "@/lib/auth/scopes";
import type { AppBindings } from "@/lib/context";
import { messages } from "@/lib/errors";
import { MAX_JSON_DEPTH } from "@/lib/json-depth";
import { PAGINATION_TEXT } from "@/lib/pagination";
import { BEARER_SCHEME, OAUTH_SCHEME, bookmarkHeader, errorExamples, errorResponses, type ErrorExample } from "@/lib/openapi";
import { rateLimitRule } from "@/lib/rate-limits";
import { BOOKMARK_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from "@/lib/request-headers";
import { strictQuery, UNKNOWN_QUERY_TEXT } from "@/lib/strict-query";
import { guard } from "@/middleware/guard";
import { idempotency } from "@/middleware/idempotency";

/** The 400 a route without a 400 of its own documents: the first check its input can fail. */
function defaultBadRequest(route: RouteConfig): Partial<ErrorExample> {
  const pathParam = /\{([^}]+)\}/.exec(route.path)?.[1];
  // uuidParam's message (src/lib/ids.ts).
  if (pathParam !== undefined) return { error: `${pathParam} must be a UUID` };
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  // paginationQuery's limit (src/lib/pagination.ts) keeps the default example.
  if (query?.shape && "limit" in query.shape) return {};
  // Every route reads X-D1-Bookmark (src/middleware/request-context.ts).
  return { error: `${BOOKMARK_HEADER} must be a bookmark returned by this API` };
}

/** A list: its query takes paginationQuery's `cursor` (src/lib/pagination.ts). */
const isList = (route: RouteConfig) => {
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  return query?.shape !== undefined && "cursor" in query.shape;
};

/** The idempotency middleware's answer while a request with the same key runs (src/middleware/idempotency.ts). */
const idempotencyConflict = "`idempotency_in_progress` while a request with the same Idempotency-Key is still running";

/**
 * The 409 of a POST: the route's own conflict (when it has one), then the idempotency
 * conflict every POST can answer.
 */
function postConflict(override: Partial<ErrorExample> | undefined): Partial<ErrorExample> {
  if (override === undefined) {
    return { description: `${idempotencyConflict}.`, code: "idempotency_in_progress", error: messages.idempotencyInProgress };
  }
  const own = (override.description ?? errorExamples[409]!.description).replace(/\.$/, "");
  return { ...override, description: `${own}; or ${idempotencyConflict}.` };
}

export type PartnerRouteConfig = RouteConfig & {
  operationId: string;
  summary: string;
  description: string;
  tags: [string, ...string[]];
  /** Any one of these scopes (or `*`) grants access; `"none"` for unauthenticated routes. */
  scopes: readonly Scope[] | "none";
  /** Extra documented error statuses beyond the ones derived from the route. */
  errors?: number[];
  errorExamples?: Partial<Record<number, Partial<ErrorExample>>>;
};

// The idempotency middleware checks the length itself, with its own message.
const idempotencyHeader = z
  .string()
  .optional()
  .openapi({
    param: { name: "Idempotency-Key", in: "header" },
    minLength: 1,
    maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
    description:
      "Makes a retried POST safe: the first response is stored for 24 hours and replayed for the same key and body. " +
      "The same key with a different body is 400 `idempotency_key_mismatch`; while the first is running, 409 `idempotency_in_progress`.",
    example: "2f7d1a4c-booking-retry-1",
  });

/**
 * A Partner API route: the `createRoute` definition plus what every operation carries:
 * the guard (auth, rate limit, scope), Idempotency-Key on POSTs, bearer security, its
 * documented errors, and its scope and rate limit as `x-required-scopes` / `x-ratelimit`.
 */
export function partnerRoute<const R extends PartnerRouteConfig>(config: R) {
  const { scopes, errors = [], errorExamples: exampleOverrides, ...route } = config;
  const per = scopes === "none" ? "ip" : "key";
  const rule = rateLimitRule(route.method, route.path, per);
  const isPost = route.method === "post";
  const statuses = [
    // Every operation takes input: at least the X-D1-Bookmark header.
    400,
    ...(scopes === "none" ? [] : [401, 403]),
    ...(route.path.includes("{") ? [404] : []),
    ...(isPost && scopes !== "none" ? [409] : []),
    ...(route.request?.body ? [413] : []),
    ...errors,
    429,
    500,
  ];
  const uniqueStatuses = [...new Set(statuses)].sort();
  const badRequest = exampleOverrides?.[400] ?? defaultBadRequest(route);
  const examples: Partial<Record<number, Partial<ErrorExample>>> = {
    ...exampleOverrides,
    400: {
      ...badRequest,
      description: `${
        exampleOverrides?.[400]?.description ??
        (isList(route)
          ? "Invalid parameters; `invalid_cursor` for a cursor that is not this list's (another list, other filters, edited)."
          : route.request?.body
            ? `Invalid parameters or body. A JSON body may nest at most ${MAX_JSON_DEPTH} levels.`
            : "Invalid parameters.")
      } ${UNKNOWN_QUERY_TEXT}`,
    },
    // The guard names the route's first scope.
    ...(scopes === "none" ? {} : { 403: exampleOverrides?.[403] ?? { error: messages.missingScope(scopes[0]!) } }),
    ...(isPost && scopes !== "none" ? { 409: postConflict(exampleOverrides?.[409]) } : {}),
  };
  const scopeText = scopes === "none" ? "none" : scopes.map((s) => `\`${s}\``).join(" or ");
  const middleware: MiddlewareHandler<AppBindings>[] = [guard({ scopes, rateLimit: rule })];
  if (isPost && scopes !== "none") middleware.push(idempotency);

  const request = {
    ...route.request,
    // Any parameter the route does not name is a 400 naming it, on every route.
    query: strictQuery(route.request?.query),
    headers: z.object({
      [BOOKMARK_HEADER]: bookmarkHeader,
      ...(isPost && scopes !== "none" ? { "Idempotency-Key": idempotencyHeader } : {}),
    }),
  };

  const built = {
    ...route,
    request,
    description: `${route.description}${isList(route) ? `\n\n${PAGINATION_TEXT}` : ""}\n\n**Scope:** ${scopeText}. **Rate limit:** ${rule.limit} requests per minute per ${per === "key" ? "API key (or connected app)" : "client IP"}.`,
    // A key, or an app's OAuth token holding any one of the route's scopes.
    security: scopes === "none" ? [] : [{ [BEARER_SCHEME]: [] }, ...scopes.map((scope) => ({ [OAUTH_SCHEME]: [scope] }))],
    middleware,
    responses: { ...route.responses, ...errorResponses(uniqueStatuses, examples) },
    "x-required-scopes": scopes === "none" ? [] : [...scopes],
    "x-ratelimit": { limit: rule.limit, window_seconds: rule.windowSeconds, per, bucket: rule.bucket },
  } satisfies RouteConfig;
  return createRoute(built) as unknown as Omit<R, "scopes" | "errors" | "errorExamples"> & {
    middleware: MiddlewareHandler<AppBindings>[];
    getRoutingPath(): string;
  };
}

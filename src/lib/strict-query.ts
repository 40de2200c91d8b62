import { z } from "@hono/zod-openapi";
import { validator } from "hono/validator";
import { validationError } from "@/lib/validation";

/** What a 400's documentation says of the refusal, on every route that checks its query this way. */
export const UNKNOWN_QUERY_TEXT = "An unknown query parameter (one this operation does not list) is refused, naming it: `Unknown query parameter: tgas`.";

/**
 * A route's query schema made strict: it takes the parameters the route documents and refuses
 * every other one, so a mistyped filter (`?tgas=buyer`) is a 400 naming it rather than an
 * unfiltered answer (docs/decisions/response-conventions.md). A route without a query schema
 * takes no query at all. The route's own object keeps its checks and its documentation; only
 * what it does with an unknown key changes, so the list of known names is never kept twice.
 */
export function strictQuery(query: unknown): z.ZodObject {
  if (query === undefined) return z.strictObject({});
  if (query instanceof z.ZodObject) return query.strict();
  throw new Error("A route's query schema must be a zod object, so its parameters can be known");
}

/**
 * The same check for a route that is not an OpenAPI route (the operator API's own document):
 * middleware refusing any query parameter the schema does not name, with the same 400.
 */
export const strictQueryValidator = (query?: z.ZodObject) => {
  const schema = strictQuery(query);
  return validator("query", (value) => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw validationError(parsed.error, "query");
    return parsed.data;
  });
};

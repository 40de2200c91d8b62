import type { Hook } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "@/lib/errors";
import type { AppBindings } from "@/lib/context";
import { listNames, namedUnknowns } from "@/lib/echoed-names";

type Issue = z.core.$ZodIssue;

/**
 * Marks a refinement's message as final: it is shown exactly as written, never prefixed with
 * the field (which `details` still names). For the specification's exact messages
 * (docs/decisions/response-conventions.md).
 * Use: `ctx.addIssue({ code: "custom", path, message, params: VERBATIM })`.
 */
export const VERBATIM = { verbatim: true } as const;

const isVerbatim = (issue: Issue) => issue.code === "custom" && issue.params?.verbatim === true;

const fieldName = (issue: Issue) => issue.path.map(String).join(".");

/**
 * One message per problem, always naming the field: `phone is required`,
 * `name: Too big: expected string to have <=200 characters`. Messages written into a schema
 * (`first_name and last_name are required`) already name their field and are kept verbatim.
 */
export function describeIssue(issue: Issue): { field: string; message: string } {
  const field = fieldName(issue);
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) {
    return { field, message: field ? `${field} is required` : "Request body is required" };
  }
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return { field: field || keys, message: `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${keys}` };
  }
  const leaf = String(issue.path[issue.path.length - 1] ?? "");
  if (!field || (leaf && issue.message.includes(leaf)) || isVerbatim(issue)) return { field, message: issue.message };
  return { field, message: `${field}: ${issue.message}` };
}

/**
 * The query's unknown parameters (its schema is strict, src/lib/strict-query.ts), named first:
 * a mistyped name (`tgas` for `tags`) explains whatever else went wrong. Stripe's "Received
 * unknown parameter", in the words of an unknown body field: `Unknown query parameter: tgas`,
 * `Unknown query parameters: a, b and 3 more`; each named one is also a detail of its own.
 */
function unknownQueryParameters(issues: Issue[]): { message: string; details: { field: string; message: string }[] } | undefined {
  const keys = issues.flatMap((issue) => (issue.code === "unrecognized_keys" && issue.path.length === 0 ? issue.keys : []));
  if (keys.length === 0) return undefined;
  const shown = namedUnknowns(keys);
  const noun = `Unknown query parameter${keys.length > 1 ? "s" : ""}`;
  return {
    message: `${noun}: ${listNames(shown)}`,
    details: shown.named.map((field) => ({ field, message: `Unknown query parameter: ${field}` })),
  };
}

/** A failed validation as the 400 of the envelope; `target` is where the input came from (`query`, `json`, ...). */
export function validationError(error: z.ZodError, target?: string): ApiError {
  const unknown = target === "query" ? unknownQueryParameters(error.issues) : undefined;
  const issues = unknown ? error.issues.filter((issue) => !(issue.code === "unrecognized_keys" && issue.path.length === 0)) : error.issues;
  const details = [...(unknown?.details ?? []), ...issues.map(describeIssue)];
  return new ApiError("validation_error", unknown?.message ?? details[0]?.message ?? "Invalid request", { details });
}

/** The shared hook of every router: a failed validation becomes a 400 in the envelope. */
export const validationHook: Hook<unknown, AppBindings, string, unknown> = (result) => {
  if (!result.success) throw validationError(result.error, result.target);
};

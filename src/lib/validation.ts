import type { Hook } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "@/lib/errors";
import type { AppBindings } from "@/lib/context";

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

export function validationError(error: z.ZodError): ApiError {
  const details = error.issues.map(describeIssue);
  return new ApiError("validation_error", details[0]?.message ?? "Invalid request", { details });
}

/** The shared hook of every router: a failed validation becomes a 400 in the envelope. */
export const validationHook: Hook<unknown, AppBindings, string, unknown> = (result) => {
  if (!result.success) throw validationError(result.error);
};

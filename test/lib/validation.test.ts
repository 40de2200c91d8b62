import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/errors";
import { describeIssue, validationError, validationHook } from "@/lib/validation";

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected a validation failure");
  return result.error;
};

describe("describeIssue", () => {
  it("says a missing field is required", () => {
    const error = issuesOf(z.object({ phone: z.string() }), {});
    expect(describeIssue(error.issues[0]!)).toEqual({ field: "phone", message: "phone is required" });
  });

  it("says a missing body is required", () => {
    const error = issuesOf(z.object({ phone: z.string() }), undefined);
    expect(describeIssue(error.issues[0]!)).toEqual({ field: "", message: "Request body is required" });
  });

  it("prefixes zod's message with the field name", () => {
    const error = issuesOf(z.object({ limit: z.number().max(100) }), { limit: 101 });
    const { field, message } = describeIssue(error.issues[0]!);
    expect(field).toBe("limit");
    expect(message).toMatch(/^limit: /);
    expect(message).toContain("100");
  });

  it("names a nested field by its dotted path", () => {
    const error = issuesOf(z.object({ days: z.array(z.object({ start: z.string() })) }), { days: [{ start: 5 }] });
    expect(describeIssue(error.issues[0]!)).toMatchObject({ field: "days.0.start" });
    expect(describeIssue(error.issues[0]!).message).toMatch(/^days\.0\.start: /);
  });

  it("keeps a schema's own message that already names the field", () => {
    const schema = z.object({ first_name: z.string({ error: "first_name and last_name are required" }) });
    const error = issuesOf(schema, { first_name: 1 });
    expect(describeIssue(error.issues[0]!)).toEqual({
      field: "first_name",
      message: "first_name and last_name are required",
    });
  });

  it("lists unknown fields", () => {
    const one = issuesOf(z.strictObject({ a: z.string() }), { a: "x", b: 1 });
    expect(describeIssue(one.issues[0]!)).toEqual({ field: "b", message: "Unknown field: b" });
    const two = issuesOf(z.strictObject({ a: z.string() }), { a: "x", b: 1, c: 2 });
    expect(describeIssue(two.issues[0]!)).toEqual({ field: "b, c", message: "Unknown fields: b, c" });
  });

  it("keeps a root-level message as it is", () => {
    const error = issuesOf(z.object({}), "not an object");
    const { field, message } = describeIssue(error.issues[0]!);
    expect(field).toBe("");
    expect(message).toBe(error.issues[0]!.message);
  });
});

describe("validationError", () => {
  it("is a 400 validation_error with the first problem as the message and every problem in details", () => {
    const error = validationError(issuesOf(z.object({ a: z.string(), b: z.number() }), {}));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({
      success: false,
      error: "a is required",
      code: "validation_error",
      details: [
        { field: "a", message: "a is required" },
        { field: "b", message: "b is required" },
      ],
    });
  });
});

describe("validationHook", () => {
  it("throws the envelope error on failure and passes a success through", () => {
    const error = issuesOf(z.object({ a: z.string() }), {});
    const hook = validationHook as (result: unknown, c: unknown) => unknown;
    expect(() => hook({ success: false, error, target: "json" }, {})).toThrow(ApiError);
    expect(hook({ success: true, data: { a: "x" }, target: "json" }, {})).toBeUndefined();
  });
});

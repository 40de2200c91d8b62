import type { z } from "@hono/zod-openapi";
import { validationError } from "@/lib/validation";

/** A form body as Hono parses it with `all: true`: a repeated field (checkboxes) is an array. */
export type FormFields = Record<string, string | File | (string | File)[]>;

/** A text field; a blank one counts as missing, so the shared schemas say "<field> is required". */
export function textField(form: FormFields, name: string): string | undefined {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim() !== "" ? first : undefined;
}

/** Every value of a repeated field (checkboxes), in the order the form sent them. */
export function listField(form: FormFields, name: string): string[] {
  const value = form[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((v): v is string => typeof v === "string");
}

/** A checkbox: present means checked. */
export const checked = (form: FormFields, name: string) => form[name] !== undefined;

/**
 * Validates a form through the operator or Partner API's own request schema, so a rule and its
 * message are the same whichever door a change comes through; throws that API's 400.
 */
export function parseWith<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

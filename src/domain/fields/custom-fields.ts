import type { Db } from "@/db/client";
import { parseIsoDate } from "@/lib/date-range";
import { badRequest } from "@/lib/errors";
import { listAllFields, type FieldRow } from "./fields.repository";

export const MAX_TEXT_LENGTH = 1000;

export type CustomFieldValue = string | number | boolean | string[];
/** A validated `custom_fields` input: `null` means "remove this key" (PATCH merge semantics). */
export type CustomFieldsInput = Record<string, CustomFieldValue | null>;

export const notAFieldMessage = (key: string) => `custom_fields.${key} is not a field of this agency`;

/** The problem with one value for one live definition, or null when it fits. */
function typeProblem(field: FieldRow, value: unknown): string | null {
  const name = `custom_fields.${field.key}`;
  const choices = field.options.join(", ");
  switch (field.type) {
    case "text":
      return typeof value === "string" && value.length <= MAX_TEXT_LENGTH
        ? null
        : `${name} must be a string of at most ${MAX_TEXT_LENGTH} characters`;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : `${name} must be a number`;
    case "date":
      return typeof value === "string" && parseIsoDate(value) !== null ? null : `${name} must be a date in YYYY-MM-DD format`;
    case "boolean":
      return typeof value === "boolean" ? null : `${name} must be true or false`;
    case "select":
      return typeof value === "string" && field.options.includes(value) ? null : `${name} must be one of: ${choices}`;
    case "multiselect":
      return Array.isArray(value) &&
        value.every((v) => typeof v === "string" && field.options.includes(v)) &&
        new Set(value).size === value.length
        ? null
        : `${name} must be an array of distinct values from: ${choices}`;
  }
}

/**
 * The one check of a contact's `custom_fields` against the agency's LIVE field definitions.
 * Every key must name a live field and its value must match the field's type. `null` removes
 * a key; it is also accepted for an archived field, so values written before archiving can
 * still be cleared. All problems are reported at once (`details`); the first is the message.
 */
export async function validateCustomFields(db: Db, agencyId: string, input: Record<string, unknown>): Promise<CustomFieldsInput> {
  if (Object.keys(input).length === 0) return {};
  return checkCustomFields(await listAllFields(db, agencyId), input);
}

/** validateCustomFields against definitions already read (all of the agency's, archived included). */
export function checkCustomFields(definitions: FieldRow[], input: Record<string, unknown>): CustomFieldsInput {
  const keys = Object.keys(input);
  const live = new Map(definitions.filter((f) => f.archivedAt === null).map((f) => [f.key, f]));
  const archived = new Set(definitions.filter((f) => f.archivedAt !== null).map((f) => f.key));

  const problems: { field: string; message: string }[] = [];
  const valid: CustomFieldsInput = {};
  for (const key of keys) {
    const value = input[key];
    const field = live.get(key);
    if (value === null && (field || archived.has(key))) {
      valid[key] = null;
      continue;
    }
    if (!field) {
      problems.push({ field: `custom_fields.${key}`, message: notAFieldMessage(key) });
      continue;
    }
    const problem = typeProblem(field, value);
    if (problem) problems.push({ field: `custom_fields.${key}`, message: problem });
    else valid[key] = value as CustomFieldValue;
  }
  if (problems.length > 0) throw badRequest(problems[0]!.message, problems);
  return valid;
}

/** Merge semantics: present keys overwrite, `null` removes. */
export function mergeCustomFields(current: Record<string, unknown>, patch: CustomFieldsInput): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

import { z } from "@hono/zod-openapi";
import { instantString, uuidString } from "@/lib/bounded";
import { queryBoolean } from "@/lib/query";
import { fieldTypes } from "@/db/schema";
import { uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { MAX_KEY_LENGTH, FIELD_KEY_PATTERN, MAX_LABEL_LENGTH, MAX_OPTIONS, MAX_OPTION_LENGTH, optionTypes, fieldMessages } from "@/domain/fields/fields.rules";


const fieldExample = {
  field_uuid: "8b0e7c52-1d3a-4f6e-9c2b-5a4d3e2f1a0b",
  key: "lead_stage",
  label: "Lead stage",
  type: "select" as const,
  options: ["new", "qualified", "won"],
  archived_at: null,
  created_at: "2026-11-20T14:05:00.000Z",
  updated_at: "2026-11-20T14:05:00.000Z",
};

export const Field = z
  .object({
    field_uuid: uuidString().openapi({ description: "Identifier of the field definition." }),
    key: z
      .string()
      .max(MAX_KEY_LENGTH)
      .regex(FIELD_KEY_PATTERN)
      .openapi({ description: "Key used in a contact's `custom_fields`; unique among live fields; immutable." }),
    label: z.string().min(1).max(MAX_LABEL_LENGTH).openapi({ description: "Display name." }),
    type: z.enum(fieldTypes).openapi({ description: "Value type; immutable." }),
    options: z
      .array(z.string().min(1).max(MAX_OPTION_LENGTH))
      .max(MAX_OPTIONS)
      .openapi({ description: "Allowed values of a `select` or `multiselect` field; empty for other types." }),
    archived_at: instantString()
      .nullable()
      .openapi({ description: "When the field was archived (deleted); null while it is live." }),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("Field", { example: fieldExample });

export const FieldResponse = z
  .object({ success: z.literal(true), field: Field })
  .openapi("FieldResponse", { example: { success: true, field: fieldExample } });

export const FieldListResponse = z
  .object({ success: z.literal(true), fields: z.array(Field).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("FieldListResponse", {
    example: { success: true, fields: [fieldExample], pagination: singlePageExample },
  });

export const ListFieldsQuery = paginationQuery.extend({
  include_archived: queryBoolean("include_archived", "`true` also returns archived (deleted) fields, in the same creation order. Default `false`.", false),
});

export const FieldParams = z.object({ field_uuid: uuidParam("field_uuid") });

/** Options arrive trimmed; the array is checked as a whole so every message names `options`. */
const optionsField = z
  .array(z.string({ error: fieldMessages.optionsType }).trim(), { error: fieldMessages.optionsType })
  .superRefine((options, ctx) => {
    if (options.length === 0) ctx.addIssue({ code: "custom", message: fieldMessages.optionsEmpty });
    else if (options.length > MAX_OPTIONS) ctx.addIssue({ code: "custom", message: fieldMessages.optionsTooMany });
    else if (options.some((o) => o.length < 1 || o.length > MAX_OPTION_LENGTH)) ctx.addIssue({ code: "custom", message: fieldMessages.optionLength });
    else if (new Set(options).size !== options.length) ctx.addIssue({ code: "custom", message: fieldMessages.optionsUnique });
  })
  // The refinement hides the bounds from the document: state them here.
  .openapi({
    type: "array",
    minItems: 1,
    maxItems: MAX_OPTIONS,
    items: { type: "string", minLength: 1, maxLength: MAX_OPTION_LENGTH },
    description: `Allowed values (1 to ${MAX_OPTIONS}, distinct, each 1 to ${MAX_OPTION_LENGTH} characters, trimmed). Required for \`select\` and \`multiselect\`; not allowed for other types.`,
    example: ["new", "qualified", "won"],
  });

const labelField = z
  .string()
  .trim()
  .min(1, fieldMessages.label)
  .max(MAX_LABEL_LENGTH, fieldMessages.label)
  .openapi({ description: `Display name, 1 to ${MAX_LABEL_LENGTH} characters.`, example: "Lead stage" });

export const CreateFieldBody = z
  .strictObject({
    key: z
      .string()
      .regex(FIELD_KEY_PATTERN, fieldMessages.keyFormat)
      .openapi({
        // The pattern already caps the length; stated for clients that size fields from the document.
        maxLength: MAX_KEY_LENGTH,
        description: `Lowercase letter first, then lowercase letters, digits or underscores; at most ${MAX_KEY_LENGTH} characters. Unique among live fields.`,
        example: "lead_stage",
      }),
    label: labelField,
    type: z
      .enum(fieldTypes, { error: (issue) => (issue.input === undefined ? "type is required" : fieldMessages.type) })
      .openapi({ example: "select" }),
    options: optionsField.optional(),
  })
  .superRefine((body, ctx) => {
    const takesOptions = optionTypes.includes(body.type);
    if (takesOptions && body.options === undefined) {
      ctx.addIssue({ code: "custom", path: ["options"], message: fieldMessages.optionsRequired });
    }
    if (!takesOptions && body.options !== undefined) {
      ctx.addIssue({ code: "custom", path: ["options"], message: fieldMessages.optionsNotAllowed });
    }
  })
  .openapi("CreateFieldRequest", {
    example: { key: "lead_stage", label: "Lead stage", type: "select", options: ["new", "qualified", "won"] },
  });

export const UpdateFieldBody = z
  .strictObject({
    label: labelField.optional(),
    options: optionsField.optional(),
  })
  .openapi("UpdateFieldRequest", { example: { label: "Pipeline stage", options: ["new", "qualified", "won", "lost"] } });

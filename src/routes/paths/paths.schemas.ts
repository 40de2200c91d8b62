import { z } from "@hono/zod-openapi";
import { pathStatuses } from "@/db/schema";
import { boundedInt, instantString, MAX_SAFE_INTEGER, uuidString } from "@/lib/bounded";
import { uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";

import { stepTypes, type Step } from "@/domain/paths/paths.model";

export const MAX_STEPS = 50;
export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_TITLE_LENGTH = 200;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 20;
export const MAX_OPTION_LENGTH = 100;
export const MAX_FORM_FIELDS = 30;
export const MAX_FIELD_LABEL_LENGTH = 100;
export const MAX_STEP_KEY_LENGTH = 64;
/** Step and form-field keys: what hosted paths send as `step` in path events (`contact-form`, `budget_q`). */
export const STEP_KEY_PATTERN = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${MAX_STEP_KEY_LENGTH - 1}}$`);

export const pathMessages = {
  notFound: "Path not found",
  archived: "Path is archived and can no longer be changed",
  alreadyArchived: "Path is already archived",
  alreadyPublished: (version: number) => `Version ${version} of this path is already published; change the draft first`,
  noSteps: "A path needs at least one step before it can be published",
  name: `name must be 1 to ${MAX_NAME_LENGTH} characters`,
  description: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
  stepsType: "steps must be an array of step objects",
  stepsTooMany: `steps may contain at most ${MAX_STEPS} steps`,
  stepKeysUnique: (key: string) => `steps must have unique keys; ${key} is used more than once`,
  // Step-level messages are prefixed with the step's path by the validation hook (`steps.0.title: ...`).
  key: `must be 1 to ${MAX_STEP_KEY_LENGTH} lowercase letters, digits, underscores or hyphens, starting with a letter or digit`,
  stepType: `must be one of: ${stepTypes.join(", ")}`,
  title: `must be 1 to ${MAX_TITLE_LENGTH} characters`,
  stepDescription: `must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
  optionsRequired: "required for a question step",
  optionsNotAllowed: "only allowed on a question step",
  optionsShape: `must hold ${MIN_OPTIONS} to ${MAX_OPTIONS} distinct answers, each 1 to ${MAX_OPTION_LENGTH} characters`,
  fieldsRequired: "required for a form step",
  fieldsNotAllowed: "only allowed on a form step",
  fieldsShape: `must hold 1 to ${MAX_FORM_FIELDS} inputs with distinct keys`,
  fieldLabel: `must be 1 to ${MAX_FIELD_LABEL_LENGTH} characters`,
  status: `status must be one of: ${pathStatuses.join(", ")}`,
} as const;

// --- Steps ------------------------------------------------------------------------------

const stepKey = z
  .string({ error: (issue) => (issue.input === undefined ? undefined : pathMessages.key) })
  .regex(STEP_KEY_PATTERN, pathMessages.key)
  // The pattern bounds the length; the document says so.
  .openapi({ maxLength: MAX_STEP_KEY_LENGTH });

const FormFieldInput = z.strictObject({
  key: stepKey.openapi({ description: "Key of the answer, e.g. a contact field or a custom field key.", example: "email" }),
  label: z.string().trim().min(1, pathMessages.fieldLabel).max(MAX_FIELD_LABEL_LENGTH, pathMessages.fieldLabel).openapi({ example: "Email" }),
  required: z.boolean().default(false).openapi({ description: "Whether the visitor must fill it in. Default `false`." }),
});

const StepInput = z
  .strictObject({
    key: stepKey.openapi({
      description:
        "Identifier of the step, unique within the path: 1 to 64 lowercase letters, digits, `_` or `-`. Path events " +
        "name the step by this key, so keep it stable across versions.",
      example: "budget",
    }),
    type: z
      .enum(stepTypes, { error: (issue) => (issue.input === undefined ? undefined : pathMessages.stepType) })
      .openapi({
        description:
          "`question` (one answer out of `options`), `form` (collects `fields`), `booking` (books an appointment), " +
          "`content` (text only).",
        example: "question",
      }),
    title: z.string().trim().min(1, pathMessages.title).max(MAX_TITLE_LENGTH, pathMessages.title).openapi({ example: "What is your budget?" }),
    description: z
      .string()
      .trim()
      .max(MAX_DESCRIPTION_LENGTH, pathMessages.stepDescription)
      .nullish()
      .openapi({ description: "Text shown under the title.", example: "Pick the closest range." }),
    // Counts and lengths are checked below, with the step's type; the document states them.
    options: z
      .array(z.string().trim().openapi({ minLength: 1, maxLength: MAX_OPTION_LENGTH }), { error: pathMessages.optionsShape })
      .optional()
      .openapi({
        description: `Answers of a \`question\` step: ${MIN_OPTIONS} to ${MAX_OPTIONS}, distinct. Required there, not allowed elsewhere.`,
        minItems: MIN_OPTIONS,
        maxItems: MAX_OPTIONS,
        example: ["Under $300k", "$300k-$600k", "Over $600k"],
      }),
    fields: z
      .array(FormFieldInput, { error: pathMessages.fieldsShape })
      .optional()
      .openapi({
        description: `Inputs of a \`form\` step: 1 to ${MAX_FORM_FIELDS}, distinct keys. Required there, not allowed elsewhere.`,
        minItems: 1,
        maxItems: MAX_FORM_FIELDS,
      }),
  })
  .superRefine((step, ctx) => {
    if (step.type === "question") {
      if (step.options === undefined) ctx.addIssue({ code: "custom", path: ["options"], message: pathMessages.optionsRequired });
      else {
        const opts = step.options;
        const bad =
          opts.length < MIN_OPTIONS ||
          opts.length > MAX_OPTIONS ||
          opts.some((o) => o.length < 1 || o.length > MAX_OPTION_LENGTH) ||
          new Set(opts).size !== opts.length;
        if (bad) ctx.addIssue({ code: "custom", path: ["options"], message: pathMessages.optionsShape });
      }
    } else if (step.options !== undefined) {
      ctx.addIssue({ code: "custom", path: ["options"], message: pathMessages.optionsNotAllowed });
    }
    if (step.type === "form") {
      if (step.fields === undefined) ctx.addIssue({ code: "custom", path: ["fields"], message: pathMessages.fieldsRequired });
      else {
        const keys = step.fields.map((f) => f.key);
        if (keys.length < 1 || keys.length > MAX_FORM_FIELDS || new Set(keys).size !== keys.length) {
          ctx.addIssue({ code: "custom", path: ["fields"], message: pathMessages.fieldsShape });
        }
      }
    } else if (step.fields !== undefined) {
      ctx.addIssue({ code: "custom", path: ["fields"], message: pathMessages.fieldsNotAllowed });
    }
  })
  // The stored shape: description always present (null when not given), options/fields only on their types.
  .transform((step): Step => ({
    key: step.key,
    type: step.type,
    title: step.title,
    description: step.description || null,
    ...(step.type === "question" ? { options: step.options } : {}),
    ...(step.type === "form" ? { fields: step.fields } : {}),
  }));


const stepsField = z
  .array(StepInput, { error: pathMessages.stepsType })
  .max(MAX_STEPS, pathMessages.stepsTooMany)
  .superRefine((steps, ctx) => {
    const seen = new Set<string>();
    for (const step of steps) {
      if (seen.has(step.key)) {
        ctx.addIssue({ code: "custom", message: pathMessages.stepKeysUnique(step.key) });
        return;
      }
      seen.add(step.key);
    }
  })
  .openapi({
    description: `The steps in the order a visitor meets them; at most ${MAX_STEPS}, keys unique within the path. Sending \`steps\` replaces the whole list.`,
  });

const stepsExample = [
  { key: "intro", type: "content", title: "Find out what your home is worth", description: null },
  { key: "budget", type: "question", title: "What is your budget?", description: null, options: ["Under $300k", "$300k-$600k", "Over $600k"] },
  {
    key: "contact-form",
    type: "form",
    title: "Where should we send your report?",
    description: null,
    fields: [
      { key: "first_name", label: "First name", required: true },
      { key: "email", label: "Email", required: true },
    ],
  },
  { key: "book", type: "booking", title: "Book a call with an agent", description: "15 minutes, no obligation." },
];

const storedKey = () => z.string().max(MAX_STEP_KEY_LENGTH).regex(STEP_KEY_PATTERN);

export const StepSchema = z
  .object({
    key: storedKey(),
    type: z.enum(stepTypes),
    title: z.string().max(MAX_TITLE_LENGTH),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    options: z
      .array(z.string().max(MAX_OPTION_LENGTH))
      .max(MAX_OPTIONS)
      .optional()
      .openapi({ description: "Present on `question` steps." }),
    fields: z
      .array(z.object({ key: storedKey(), label: z.string().max(MAX_FIELD_LABEL_LENGTH), required: z.boolean() }))
      .max(MAX_FORM_FIELDS)
      .optional()
      .openapi({ description: "Present on `form` steps." }),
  })
  .openapi("PathStep", { example: stepsExample[1] });

// --- Records ----------------------------------------------------------------------------

const pathUuidExample = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";

const pathExample = {
  path_uuid: pathUuidExample,
  name: "Seller valuation funnel",
  description: "Home valuation for sellers in Austin.",
  status: "published" as const,
  steps: stepsExample,
  version: 3,
  published_version: 3,
  published_at: "2026-11-21T10:00:00.000Z",
  archived_at: null,
  created_at: "2026-11-20T14:05:00.000Z",
  updated_at: "2026-11-21T09:30:00.000Z",
};

/** A revision number: 1 on create, +1 on every change. */
const revision = () => boundedInt(1, MAX_SAFE_INTEGER);

export const Path = z
  .object({
    path_uuid: uuidString().openapi({ description: "Identifier of the path." }),
    name: z.string().max(MAX_NAME_LENGTH),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    status: z.enum(pathStatuses).openapi({
      description:
        "`draft` until first published; `published` once a version is live (later edits change the draft, not the " +
        "live version); `archived` after `DELETE`.",
    }),
    steps: z.array(StepSchema).max(MAX_STEPS).openapi({ description: "The current draft's steps." }),
    version: revision().openapi({ description: "Revision of the draft: 1 on create, +1 on every change." }),
    published_version: revision()
      .nullable()
      .openapi({ description: "The draft revision that is live; null if never published. `version > published_version` means unpublished changes." }),
    published_at: instantString().nullable().openapi({ description: "When `published_version` was published." }),
    archived_at: instantString().nullable().openapi({ description: "When the path was archived (deleted); null otherwise." }),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("Path", { example: pathExample });

const catalogExample = {
  path_uuid: pathUuidExample,
  name: pathExample.name,
  status: pathExample.status,
  published_at: pathExample.published_at,
};

export const PathCatalogEntry = z
  .object({
    path_uuid: uuidString(),
    name: z.string().max(MAX_NAME_LENGTH),
    status: z.enum(pathStatuses),
    published_at: instantString().nullable(),
  })
  .openapi("PathCatalogEntry", { example: catalogExample });

export const PathResponse = z
  .object({ success: z.literal(true), path: Path })
  .openapi("PathResponse", { example: { success: true, path: pathExample } });

export const PathListResponse = z
  .object({ success: z.literal(true), paths: z.array(Path).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("PathListResponse", { example: { success: true, paths: [pathExample], pagination: singlePageExample } });

export const PathCatalogResponse = z
  .object({ success: z.literal(true), paths: z.array(PathCatalogEntry).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("PathCatalogResponse", {
    example: { success: true, paths: [catalogExample], pagination: singlePageExample },
  });

/**
 * GET /paths answers one of two shapes, decided by the caller's scopes. `anyOf`, not `oneOf`:
 * a full record also has every catalog field, so the two shapes are not mutually exclusive.
 */
export const PathsOrCatalogResponse = z.union([PathListResponse, PathCatalogResponse]).openapi("PathsOrCatalogResponse", {
  description:
    "`PathListResponse` (full records) for a key with `paths` or `*`; `PathCatalogResponse` (path_uuid, name, " +
    "status, published_at) for a key with `analytics` only.",
  example: { success: true, paths: [pathExample], pagination: singlePageExample },
});

const versionExample = {
  path_uuid: pathUuidExample,
  version: 3,
  name: pathExample.name,
  description: pathExample.description,
  steps: stepsExample,
  published_at: pathExample.published_at,
};

export const PathVersion = z
  .object({
    path_uuid: uuidString(),
    version: revision().openapi({ description: "The draft revision that was published." }),
    name: z.string().max(MAX_NAME_LENGTH),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    steps: z.array(StepSchema).max(MAX_STEPS),
    published_at: instantString(),
  })
  .openapi("PathVersion", { example: versionExample });

export const PathVersionListResponse = z
  .object({ success: z.literal(true), versions: z.array(PathVersion).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("PathVersionListResponse", {
    example: { success: true, versions: [versionExample], pagination: singlePageExample },
  });

// --- Requests ---------------------------------------------------------------------------

export const PathParams = z.object({ path_uuid: uuidParam("path_uuid") });

export const ListPathsQuery = paginationQuery.extend({
  status: z
    .enum(pathStatuses, { error: pathMessages.status })
    .optional()
    .openapi({
      param: { name: "status", in: "query" },
      description: "Only paths with this status. Without it, every path except archived ones.",
      example: "published",
    }),
});

export const VersionsQuery = paginationQuery;

const nameField = z
  .string()
  .trim()
  .min(1, pathMessages.name)
  .max(MAX_NAME_LENGTH, pathMessages.name)
  .openapi({ description: `1 to ${MAX_NAME_LENGTH} characters.`, example: "Seller valuation funnel" });

const descriptionField = z
  .string()
  .trim()
  .max(MAX_DESCRIPTION_LENGTH, pathMessages.description)
  .openapi({ description: `At most ${MAX_DESCRIPTION_LENGTH} characters; empty is stored as null.`, example: "Home valuation for sellers in Austin." });

export const CreatePathBody = z
  .strictObject({
    name: nameField,
    description: descriptionField.nullish(),
    steps: stepsField.optional(),
  })
  .openapi("CreatePathRequest", {
    example: { name: "Seller valuation funnel", description: "Home valuation for sellers in Austin.", steps: stepsExample },
  });

export const UpdatePathBody = z
  .strictObject({
    name: nameField.optional(),
    description: descriptionField.nullable().optional(),
    steps: stepsField.optional(),
  })
  .openapi("UpdatePathRequest", { example: { name: "Seller valuation funnel (2027)", steps: stepsExample.slice(0, 3) } });

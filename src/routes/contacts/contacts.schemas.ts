import { z } from "@hono/zod-openapi";
import { boundedInt, countInt, instantString, uuidString } from "@/lib/bounded";
import { queryBoolean } from "@/lib/query";
import { uuidField, uuidParam } from "@/lib/ids";
import { documentedNullable } from "@/lib/openapi";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { e164String, phoneField } from "@/lib/phone";
import { MAX_TAGS, MAX_TAG_LENGTH, MAX_SOURCE_LENGTH, MAX_NAME_LENGTH, MAX_EMAIL_LENGTH, MAX_EXTERNAL_ID_LENGTH, MAX_LISTED_TAGS, MAX_LISTED_SOURCES, contactKeys, MAX_BULK_CONTACTS, contactMessages, bulkStatuses } from "@/domain/contacts/contacts.rules";

const exampleUuid = "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21";
const pathExampleUuid = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";

const contactExample = {
  contact_uuid: exampleUuid,
  first_name: "Ada",
  last_name: "Lovelace",
  email: "ada@example.com",
  phone: "+14155550123",
  tags: ["buyer", "vip"],
  source: "Zillow",
  path_uuid: pathExampleUuid,
  custom_fields: { lead_stage: "qualified", budget: 450000 },
  external_id: "crm-10442",
  sms_opt_out: false,
  created_at: "2026-11-20T14:05:00.000Z",
  updated_at: "2026-11-21T09:30:00.000Z",
  deleted_at: null,
};

export const Contact = z
  .object({
    contact_uuid: uuidString().openapi({ description: "Identifier of the contact." }),
    first_name: z.string().max(MAX_NAME_LENGTH),
    last_name: z.string().max(MAX_NAME_LENGTH),
    email: z
      .string()
      .max(MAX_EMAIL_LENGTH)
      .nullable()
      .openapi({ format: "email", description: "Lower-cased email address; unique among live contacts." }),
    phone: e164String().nullable().openapi({ description: "E.164 phone number; unique among live contacts." }),
    tags: z
      .array(z.string().min(1).max(MAX_TAG_LENGTH))
      .max(MAX_TAGS)
      .openapi({ description: "Tags in the order they were given, without repeats." }),
    source: z
      .string()
      .max(MAX_SOURCE_LENGTH)
      .nullable()
      .openapi({ description: "Where the contact came from (free text, e.g. a lead vendor)." }),
    path_uuid: uuidString().nullable().openapi({ description: "The path (funnel) the contact came through." }),
    custom_fields: z
      .record(z.string(), z.unknown())
      .openapi({ description: "Values of the agency's custom fields, by field key (see `GET /fields`)." }),
    external_id: z
      .string()
      .max(MAX_EXTERNAL_ID_LENGTH)
      .nullable()
      .openapi({ description: "Your own id for the contact (your CRM's); unique among live contacts, null when not set." }),
    sms_opt_out: z.boolean().openapi({
      description:
        "Whether the contact's phone number is opted out of your SMS. An opt-out belongs to the number, not to the contact: " +
        "it starts when the number texts STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) to your SMS number, or when you " +
        "set `sms_opt_out: true` with `PATCH /contacts/{contact_uuid}`, and only the person ends it, by texting START (or YES, " +
        "UNSTOP). Every contact holding the number shows it, deleted or not, and so does a contact that is given the number " +
        "later (a re-created contact, or another contact's new phone); each change of it is a `contact.updated` event. While " +
        "true, sending an SMS to the contact is 409 `sms_opt_out`. Always false for a contact without a phone.",
    }),
    created_at: instantString(),
    updated_at: instantString(),
    deleted_at: instantString()
      .nullable()
      .openapi({ description: "When the contact was soft-deleted; null for a live contact." }),
  })
  .openapi("Contact", { example: contactExample });

export const ContactResponse = z
  .object({ success: z.literal(true), contact: Contact })
  .openapi("ContactResponse", { example: { success: true, contact: contactExample } });

export const ContactListResponse = z
  .object({ success: z.literal(true), contacts: z.array(Contact).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("ContactListResponse", {
    example: { success: true, contacts: [contactExample], pagination: singlePageExample },
  });

export const ContactTagsResponse = z
  .object({
    success: z.literal(true),
    tags: z
      .array(z.object({ tag: z.string().min(1).max(MAX_TAG_LENGTH), count: countInt().openapi({ description: "Live contacts carrying the tag." }) }))
      .max(MAX_LISTED_TAGS)
      .openapi({ description: `The ${MAX_LISTED_TAGS} most used tags at most.` }),
  })
  .openapi("ContactTagsResponse", {
    example: { success: true, tags: [{ tag: "buyer", count: 42 }, { tag: "vip", count: 7 }] },
  });

export const ContactSourcesResponse = z
  .object({
    success: z.literal(true),
    sources: z
      .array(
        z.object({ source: z.string().min(1).max(MAX_SOURCE_LENGTH), count: countInt().openapi({ description: "Live contacts with this source." }) }),
      )
      .max(MAX_LISTED_SOURCES)
      .openapi({ description: `The ${MAX_LISTED_SOURCES} most used sources at most.` }),
  })
  .openapi("ContactSourcesResponse", {
    example: { success: true, sources: [{ source: "Zillow", count: 31 }, { source: "Website", count: 12 }] },
  });

export const ContactParams = z.object({ contact_uuid: uuidParam("contact_uuid") });

export const ListContactsQuery = paginationQuery.extend({
  q: z
    .string()
    .trim()
    .max(100, "q must be at most 100 characters")
    .optional()
    .openapi({
      param: { name: "q", in: "query" },
      description:
        "Search, up to 100 characters. `q` is split into words (runs of letters and digits; spaces and punctuation " +
        "such as `@ . - ' \" * ( )` only separate words and are otherwise ignored). A contact matches when every word " +
        "is the start of a word of its first name, last name or email, in any order: `lov` and `ada lov` find Ada " +
        "Lovelace, `hopper grace` finds Grace Hopper, `ada@ana` and `analytical.org` find ada@analytical.org; a fragment " +
        "from the middle of a word (`velace`) does not match. Case and accents are ignored (`jose` finds José, `JOSÉ` " +
        "finds Jose). When `q` looks like a phone number (only digits, spaces and `( ) . + -`), contacts whose phone " +
        "contains its digits anywhere match too: `0123`, `555-01`, `(415) 555-0123` and `+1 415 555 0123` all find " +
        "+14155550123. A `q` with no letter or digit matches no contact.",
      example: "ada lov",
    }),
  tag: z
    .string()
    .trim()
    .min(1, "tag must not be empty")
    .max(MAX_TAG_LENGTH, contactMessages.tagLength)
    .optional()
    .openapi({ param: { name: "tag", in: "query" }, description: "Only contacts carrying this exact tag (case-sensitive).", example: "vip" }),
  source: z
    .string()
    .trim()
    .min(1, "source must not be empty")
    .max(MAX_SOURCE_LENGTH, contactMessages.source)
    .optional()
    .openapi({ param: { name: "source", in: "query" }, description: "Only contacts with exactly this source (case-sensitive).", example: "Zillow" }),
  external_id: z
    .string()
    .trim()
    .min(1, contactMessages.externalId)
    .max(MAX_EXTERNAL_ID_LENGTH, contactMessages.externalId)
    .optional()
    .openapi({ param: { name: "external_id", in: "query" }, description: "Only the contact with exactly this external_id.", example: "crm-10442" }),
  deleted: queryBoolean("deleted", "`true` lists soft-deleted contacts (which can be restored) instead of live ones. Default `false`.", false),
});

/** Names: trimmed; on create a missing or blank one is the specification's message (docs/decisions/resources.md). */
const nameField = (name: "first_name" | "last_name", required: boolean) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? required
            ? contactMessages.namesRequired
            : `${name} cannot be null`
          : `${name} must be a string`,
    })
    .trim()
    .min(1, required ? contactMessages.namesRequired : contactMessages.blankName(name))
    .max(MAX_NAME_LENGTH, contactMessages.nameLength(name))
    .openapi({ example: name === "first_name" ? "Ada" : "Lovelace" });

const emailField = z
  .email({ error: contactMessages.email })
  .max(MAX_EMAIL_LENGTH, contactMessages.email)
  .transform((email) => email.toLowerCase())
  // The transform hides the input's bound from the document: state it here.
  .openapi({ type: "string", format: "email", maxLength: MAX_EMAIL_LENGTH, description: "Stored and returned lower-cased.", example: "ada@example.com" });

/** Tags are checked as one array so that every message names `tags`. */
const tagsField = z
  .array(z.string({ error: contactMessages.tagsType }).trim(), { error: contactMessages.tagsType })
  .max(MAX_TAGS, contactMessages.tagsTooMany)
  .superRefine((tags, ctx) => {
    if (tags.some((t) => t.length < 1 || t.length > MAX_TAG_LENGTH)) ctx.addIssue({ code: "custom", message: contactMessages.tagLength });
  })
  .transform((tags) => [...new Set(tags)])
  // The refinement and transform hide the bounds from the document: state them here.
  .openapi({
    type: "array",
    maxItems: MAX_TAGS,
    items: { type: "string", minLength: 1, maxLength: MAX_TAG_LENGTH },
    description: `Up to ${MAX_TAGS} tags, each 1 to ${MAX_TAG_LENGTH} characters; trimmed, repeats dropped, case kept.`,
    example: ["buyer", "vip"],
  });

const sourceField = z
  .string()
  .trim()
  .min(1, contactMessages.source)
  .max(MAX_SOURCE_LENGTH, contactMessages.source)
  .openapi({ description: `Where the contact came from, 1 to ${MAX_SOURCE_LENGTH} characters.`, example: "Zillow" });

const externalIdField = z
  .string({ error: "external_id must be a string" })
  .trim()
  .min(1, contactMessages.externalId)
  .max(MAX_EXTERNAL_ID_LENGTH, contactMessages.externalId)
  .openapi({
    description: `Your own id for the contact, 1 to ${MAX_EXTERNAL_ID_LENGTH} characters (trimmed, case kept); unique among your live contacts, so a clash is 409 naming the contact that holds it.`,
    example: "crm-10442",
  });

const pathField = uuidField("path_uuid")
  .transform((id) => id.toLowerCase())
  .openapi({ type: "string", format: "uuid", description: "A path of your agency; an unknown one is 400 `Unknown path_uuid`.", example: pathExampleUuid });

const customFieldsField = (nullRemoves: boolean) =>
  z.record(z.string(), z.unknown(), { error: contactMessages.customFieldsType }).openapi({
    description:
      "Values by field key. Every key must be a live field of your agency (`GET /fields`) and the value must fit its " +
      "type: text (string up to 1000 characters), number, date (`YYYY-MM-DD`), boolean, select (one of the options), " +
      "multiselect (array of distinct options)." +
      (nullRemoves ? " Merged into the stored values: keys not sent are kept, and `null` removes a key." : ""),
    example: { lead_stage: "qualified", budget: 450000 },
  });

export const CreateContactBody = z
  .strictObject({
    first_name: nameField("first_name", true),
    last_name: nameField("last_name", true),
    email: emailField.nullish().openapi(documentedNullable),
    phone: phoneField("phone").nullish().openapi(documentedNullable),
    tags: tagsField.optional(),
    source: sourceField.nullish(),
    path_uuid: pathField.nullish().openapi(documentedNullable),
    custom_fields: customFieldsField(false).optional(),
    external_id: externalIdField.nullish().openapi(documentedNullable),
  })
  .openapi("CreateContactRequest", {
    example: {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "Ada@Example.com",
      phone: "(415) 555-0123",
      tags: ["buyer", "vip"],
      source: "Zillow",
      path_uuid: pathExampleUuid,
      custom_fields: { lead_stage: "qualified", budget: 450000 },
      external_id: "crm-10442",
    },
  });

export const UpdateContactBody = z
  .strictObject({
    first_name: nameField("first_name", false).optional(),
    last_name: nameField("last_name", false).optional(),
    email: emailField.nullable().optional().openapi(documentedNullable),
    phone: phoneField("phone").nullable().optional().openapi(documentedNullable),
    tags: tagsField.optional(),
    source: sourceField.nullable().optional(),
    path_uuid: pathField.nullable().optional().openapi(documentedNullable),
    custom_fields: customFieldsField(true).optional(),
    external_id: externalIdField.nullable().optional().openapi(documentedNullable),
    sms_opt_out: z
      .literal(true, { error: contactMessages.optOutOnlyTrue })
      .optional()
      .openapi({
        description:
          "`true` opts the contact's phone number out of your SMS, for the person who asked by another channel (a call, an " +
          "email): the number is then suppressed for every contact holding it, now or later, until the person texts START " +
          "(or YES, UNSTOP) to your SMS number. Only `true` is accepted (anything else is 400): an opt-out is the person's to " +
          "lift, never the API's. With `phone` in the same request, the new phone is the number opted out; a contact without " +
          "a phone is 400.",
        example: true,
      }),
  })
  .openapi("UpdateContactRequest", {
    example: { last_name: "King", tags: ["buyer"], custom_fields: { lead_stage: "won", budget: null } },
  });

// A schema of its own (not `.extend`), so the document lists every field in one object.
export const BulkContactItem = z.strictObject({
  ...CreateContactBody.shape,
  match_on: z.enum(contactKeys, { error: contactMessages.matchOn }).optional().openapi({
    description:
      "Which value finds the contact to update: `external_id`, `email` or `phone`. Default: the first of those the item has. " +
      "An item with none of them is always created.",
    example: "external_id",
  }),
}).openapi("BulkContactItem", {
  description: "A contact as `POST /contacts` takes it, plus `match_on`. When it matches a live contact, the fields sent replace that contact's (custom_fields are merged, `null` removes a key) and fields not sent are kept.",
  example: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", external_id: "crm-10442", tags: ["buyer"], match_on: "external_id" },
});

export const BulkContactsBody = z
  .strictObject({
    contacts: z
      // Each item is checked on its own (one bad item fails only itself); the document shows BulkContactItem.
      .array(z.unknown().openapi({ type: "object", allOf: [{ $ref: "#/components/schemas/BulkContactItem" }] } as object))
      .min(1, contactMessages.bulkSize)
      .max(MAX_BULK_CONTACTS, contactMessages.bulkSize)
      .openapi({ description: `1 to ${MAX_BULK_CONTACTS} contacts, applied in order.` }),
  })
  .openapi("BulkContactsRequest", {
    example: {
      contacts: [
        { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", external_id: "crm-10442" },
        { first_name: "Grace", last_name: "Hopper", phone: "+12125550199", external_id: "crm-10443", tags: ["vip"] },
      ],
    },
  });

export const BulkContactResult = z
  .object({
    index: boundedInt(0, MAX_BULK_CONTACTS - 1).openapi({ description: "The item's position in `contacts`, from 0." }),
    status: z.enum(bulkStatuses).openapi({
      description: "`created`, `updated`, `unchanged` (it matched a contact that already had these values: nothing written) or `error`.",
    }),
    contact_uuid: uuidString().nullable().openapi({ description: "The contact created, updated or matched; null for an error." }),
    error: z
      .string()
      .max(1000)
      .nullable()
      .openapi({ description: "What was wrong, in the words `POST /contacts` and `PATCH /contacts/{contact_uuid}` use; null unless `status` is `error`." }),
    code: z
      .enum(["validation_error", "conflict"])
      .nullable()
      .openapi({ description: "`validation_error` (the item is invalid) or `conflict` (another contact holds its external_id, email or phone); null unless `status` is `error`." }),
  })
  .openapi("BulkContactResult");

export const BulkContactsResponse = z
  .object({ success: z.literal(true), results: z.array(BulkContactResult).max(MAX_BULK_CONTACTS) })
  .openapi("BulkContactsResponse", {
    example: {
      success: true,
      results: [
        { index: 0, status: "created", contact_uuid: exampleUuid, error: null, code: null },
        { index: 1, status: "error", contact_uuid: null, error: "A contact with this phone already exists: 0c9e2f4a-6b1d-4e3f-8a7c-5d2b1e0f9a83", code: "conflict" },
      ],
    },
  });

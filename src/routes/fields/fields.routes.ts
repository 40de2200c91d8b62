import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { CreateFieldBody, FieldListResponse, FieldParams, FieldResponse, ListFieldsQuery, UpdateFieldBody } from "./fields.schemas";
import { fieldMessages } from "@/domain/fields/fields.rules";

const notFoundExample = { 404: { description: "No live field with this uuid in your agency.", error: fieldMessages.notFound } };

export const listFields = partnerRoute({
  method: "get",
  path: "/fields",
  operationId: "listFields",
  tags: ["Fields"],
  summary: "List custom fields",
  description:
    "Lists the agency's custom field definitions, oldest first (the order they were created), so a form built from " +
    "them keeps a stable order. Archived (deleted) fields are left out unless `include_archived=true`. Paginated " +
    "with `page` and `limit`.",
  scopes: ["fields"],
  request: { query: ListFieldsQuery },
  responses: { 200: jsonContent(FieldListResponse, "One page of field definitions.") },
});

export const createField = partnerRoute({
  method: "post",
  path: "/fields",
  operationId: "createField",
  tags: ["Fields"],
  summary: "Create custom field",
  description:
    "Defines a custom field that contacts can then carry in `custom_fields` under its `key`. `type` decides which " +
    "values a contact may hold: `text` (string up to 1000 characters), `number`, `date` (`YYYY-MM-DD`), `boolean`, " +
    "`select` (one of `options`) or `multiselect` (an array of distinct `options`). `options` is required for " +
    "`select` and `multiselect` and not allowed for other types. A live field with the same `key` is 409; the key of " +
    "an archived field may be reused.",
  scopes: ["fields"],
  request: { body: jsonBody(CreateFieldBody) },
  errorExamples: {
    400: { error: fieldMessages.optionsRequired },
    409: { description: "A live field already uses this key.", error: fieldMessages.duplicateKey("8b0e7c52-1d3a-4f6e-9c2b-5a4d3e2f1a0b") },
  },
  responses: { 201: jsonContent(FieldResponse, "The created field.") },
});

export const updateField = partnerRoute({
  method: "patch",
  path: "/fields/{field_uuid}",
  operationId: "updateField",
  tags: ["Fields"],
  summary: "Update custom field",
  description:
    "Changes the `label` and, for `select` and `multiselect` fields, the `options` (the full new list). `key` and " +
    "`type` are immutable: sending either is 400; archive the field and create a new one instead. Options may be " +
    "removed: values already stored on contacts are kept, but new writes must use the current options. An archived " +
    "field cannot be changed (404).",
  scopes: ["fields"],
  request: { params: FieldParams, body: jsonBody(UpdateFieldBody) },
  errorExamples: { 400: { error: fieldMessages.keyImmutable }, ...notFoundExample },
  responses: { 200: jsonContent(FieldResponse, "The updated field.") },
});

export const deleteField = partnerRoute({
  method: "delete",
  path: "/fields/{field_uuid}",
  operationId: "deleteField",
  tags: ["Fields"],
  summary: "Archive custom field",
  description:
    "Deleting a field archives it: it disappears from `GET /fields` (unless `include_archived=true`), contacts can no " +
    "longer write it, and its key becomes free for a new field. Values already stored on contacts are kept and can " +
    "be cleared by sending `null` for the key. Answers with the archived field; archiving it again is 404.",
  scopes: ["fields"],
  request: { params: FieldParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(FieldResponse, "The archived field, with `archived_at` set.") },
});

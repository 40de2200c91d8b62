import { jsonBody, jsonContent } from "@/lib/openapi";
import { SYNC_LOOP_TEXT } from "@/lib/pagination";
import { partnerRoute } from "@/routes/partner-route";
import { UNKNOWN_PATH_MESSAGE } from "@/domain/paths/path-lookup";
import { ContactListResponse, ContactParams, ContactResponse, ContactSourcesResponse, ContactTagsResponse, CreateContactBody, ListContactsQuery, UpdateContactBody, BulkContactsBody, BulkContactsResponse } from "./contacts.schemas";
import { MAX_LISTED_SOURCES, MAX_LISTED_TAGS, MAX_BULK_CONTACTS, contactMessages } from "@/domain/contacts/contacts.rules";

const exampleUuid = "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21";
const notFoundExample = {
  404: { description: "No live contact with this uuid in your agency.", error: contactMessages.notFound },
};
const duplicateExample = {
  409: { description: "A live contact already has this external_id, email or phone; the message names it.", error: contactMessages.duplicateEmail(exampleUuid) },
};

const writeRules =
  "`email` is stored lower-cased and `phone` (10-digit US or E.164) in E.164; each, and `external_id`, must be unique among live " +
  "contacts, otherwise 409 with the existing contact's uuid in the message. `tags` are trimmed and repeats dropped. " +
  "`path_uuid` must be a path of your agency (else 400 `" + UNKNOWN_PATH_MESSAGE + "`). `custom_fields` keys must " +
  "be live fields of your agency with values of the field's type (else 400 naming `custom_fields.<key>`). Unknown " +
  "body fields are 400.";

export const listContacts = partnerRoute({
  method: "get",
  path: "/contacts",
  operationId: "listContacts",
  tags: ["Contacts"],
  summary: "List contacts",
  description:
    "Lists the agency's live contacts, newest first (by `created_at`). Filters combine with AND: `q` searches by " +
    "word starts in the first name, last name and email, and by digits in the phone number (see `q`); `tag` and " +
    "`source` match exactly. `deleted=true` lists soft-deleted contacts instead (`q` searches them too), for " +
    "example to find one to restore. `external_id` finds the contact with your own id. `pagination.total` counts every match.\n\n" +
    SYNC_LOOP_TEXT,
  scopes: ["contacts"],
  request: { query: ListContactsQuery },
  responses: { 200: jsonContent(ContactListResponse, "One page of contacts.") },
});

export const createContact = partnerRoute({
  method: "post",
  path: "/contacts",
  operationId: "createContact",
  tags: ["Contacts"],
  summary: "Create contact",
  description: `Creates a contact. \`first_name\` and \`last_name\` are required and may not be blank. ${writeRules}`,
  scopes: ["contacts"],
  request: { body: jsonBody(CreateContactBody) },
  errorExamples: { 400: { error: contactMessages.namesRequired }, ...duplicateExample },
  responses: { 201: jsonContent(ContactResponse, "The created contact.") },
});

export const bulkUpsertContacts = partnerRoute({
  method: "post",
  path: "/contacts/bulk",
  operationId: "bulkUpsertContacts",
  tags: ["Contacts"],
  summary: "Create or update contacts in bulk",
  description:
    `Creates or updates up to ${MAX_BULK_CONTACTS} contacts in one request, for keeping your CRM and the agency in step. Each item is a ` +
    "contact as `POST /contacts` takes it, plus `match_on` (`external_id`, `email` or `phone`; default: the first of those the item has). " +
    "An item that matches a live contact updates it: the fields sent replace the stored ones, `custom_fields` are merged (`null` removes a key) " +
    "and fields not sent are kept. Otherwise the item creates a contact. Items are applied in order, each seeing the ones before it, so a " +
    "contact created by one item is updated by a later item that matches it.\n\n" +
    "The answer is 200 with one result per item, in order: `created`, `updated`, `unchanged` (nothing to change: nothing written) or `error`, " +
    "with the message `POST /contacts` or `PATCH /contacts/{contact_uuid}` would have given and its code (`validation_error`, or `conflict` " +
    "when another live contact holds the item's external_id, email or phone). A bad item fails only itself. Every created or updated contact " +
    "writes its `contact.created` or `contact.updated` event; a created one with a `path_uuid` counts as a lead of that path. " +
    `More than ${MAX_BULK_CONTACTS} items, or a body that is not \`{ "contacts": [ ... ] }\`, is 400 for the whole request. ` +
    "Send an `Idempotency-Key` to make a retry safe.",
  scopes: ["contacts"],
  request: { body: jsonBody(BulkContactsBody) },
  errorExamples: { 400: { error: contactMessages.bulkSize } },
  responses: { 200: jsonContent(BulkContactsResponse, "One result per item, in the order sent.") },
});

export const listContactTags = partnerRoute({
  method: "get",
  path: "/contacts/tags",
  operationId: "listContactTags",
  tags: ["Contacts"],
  summary: "List contact tags",
  description:
    `The distinct tags on the agency's live contacts, with the number of live contacts carrying each: the ${MAX_LISTED_TAGS} ` +
    "most used at most, most used first, then alphabetically. Soft-deleted contacts are not counted.",
  scopes: ["contacts"],
  responses: { 200: jsonContent(ContactTagsResponse, "Tags with counts.") },
});

export const listContactSources = partnerRoute({
  method: "get",
  path: "/contacts/sources",
  operationId: "listContactSources",
  tags: ["Contacts"],
  summary: "List contact sources",
  description:
    `The distinct \`source\` values of the agency's live contacts, with the number of live contacts from each: the ` +
    `${MAX_LISTED_SOURCES} most used at most, most used first, then alphabetically. Contacts without a source and ` +
    "soft-deleted contacts are not counted.",
  scopes: ["contacts"],
  responses: { 200: jsonContent(ContactSourcesResponse, "Sources with counts.") },
});

export const getContact = partnerRoute({
  method: "get",
  path: "/contacts/{contact_uuid}",
  operationId: "getContact",
  tags: ["Contacts"],
  summary: "Get contact",
  description: "Returns one live contact. A soft-deleted contact is 404 here; find it with `GET /contacts?deleted=true`.",
  scopes: ["contacts"],
  request: { params: ContactParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(ContactResponse, "The contact.") },
});

export const updateContact = partnerRoute({
  method: "patch",
  path: "/contacts/{contact_uuid}",
  operationId: "updateContact",
  tags: ["Contacts"],
  summary: "Update contact",
  description:
    "Changes any subset of the fields accepted by create; fields not sent are kept. Names may not become blank. " +
    "`email`, `phone`, `source` and `path_uuid` can be cleared with `null`. `tags` replaces the whole list. " +
    `\`custom_fields\` is merged: keys not sent are kept and \`null\` removes a key. ${writeRules} ` +
    "`sms_opt_out: true` opts the contact's phone number out of your SMS (only the person lifts it, by texting START); " +
    `sending it again keeps the first opt-out. \`false\` is 400 \`${contactMessages.optOutOnlyTrue}\`, and \`true\` on a contact ` +
    `left without a phone is 400 \`${contactMessages.optOutNeedsPhone}\`. ` +
    "A soft-deleted contact is 404; restore it first.",
  scopes: ["contacts"],
  request: { params: ContactParams, body: jsonBody(UpdateContactBody) },
  errors: [409],
  errorExamples: { 400: { error: contactMessages.blankName("first_name") }, ...notFoundExample, ...duplicateExample },
  responses: { 200: jsonContent(ContactResponse, "The updated contact.") },
});

export const deleteContact = partnerRoute({
  method: "delete",
  path: "/contacts/{contact_uuid}",
  operationId: "deleteContact",
  tags: ["Contacts"],
  summary: "Soft-delete contact",
  description:
    "Soft-deletes a contact: afterwards `GET /contacts/{contact_uuid}` is 404, lists and tag/source counts leave it " +
    "out, and its email and phone are free for a new contact. It stays listed under `GET /contacts?deleted=true` " +
    "and can be brought back with `POST /contacts/{contact_uuid}/restore`. Answers with the contact, `deleted_at` set.",
  scopes: ["contacts"],
  request: { params: ContactParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(ContactResponse, "The soft-deleted contact.") },
});

export const restoreContact = partnerRoute({
  method: "post",
  path: "/contacts/{contact_uuid}/restore",
  operationId: "restoreContact",
  tags: ["Contacts"],
  summary: "Restore contact",
  description:
    "Undoes a soft delete. Only a soft-deleted contact of your agency can be restored: an unknown uuid is 404 and a " +
    "contact that is not deleted is 409 `" + contactMessages.notDeleted + "`. If a live contact has taken its email " +
    "or phone in the meantime, the restore is 409 naming that contact; change or delete one of them first.",
  scopes: ["contacts"],
  request: { params: ContactParams },
  errorExamples: {
    404: { description: "No contact with this uuid in your agency.", error: contactMessages.notFound },
    409: {
      ...duplicateExample[409],
      description:
        `The contact is not deleted (\`${contactMessages.notDeleted}\`), or a live contact already has its email or ` +
        "phone; the message names it.",
    },
  },
  responses: { 200: jsonContent(ContactResponse, "The restored contact, `deleted_at` null.") },
});

/** What a contact may hold, and the messages that say so: the domain's rules, which the route schemas document. */
export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 50;
export const MAX_SOURCE_LENGTH = 100;
export const MAX_NAME_LENGTH = 100;
/** The longest address SMTP can deliver to (RFC 5321: a 256-octet path less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;
export const MAX_EXTERNAL_ID_LENGTH = 255;
/**
 * `GET /contacts/tags` and `GET /contacts/sources` list at most this many values, the most used
 * first: enough for any tagging scheme a person reads, and one bounded response however many
 * distinct values an import leaves behind.
 */
export const MAX_LISTED_TAGS = 1000;
export const MAX_LISTED_SOURCES = 1000;

/** The values unique among an agency's live contacts, in the order a match looks for them. */
export const contactKeys = ["external_id", "email", "phone"] as const;
export type ContactKey = (typeof contactKeys)[number];

/** Contacts in one `POST /contacts/bulk`. */
export const MAX_BULK_CONTACTS = 100;

export const contactMessages = {
  notFound: "Contact not found",
  namesRequired: "first_name and last_name are required",
  blankName: (name: string) => `${name} cannot be blank`,
  nameLength: (name: string) => `${name} must be at most ${MAX_NAME_LENGTH} characters`,
  email: "email must be a valid email address",
  tagsType: "tags must be an array of strings",
  tagsTooMany: `tags may contain at most ${MAX_TAGS} tags`,
  tagLength: `tags must each be 1 to ${MAX_TAG_LENGTH} characters`,
  source: `source must be 1 to ${MAX_SOURCE_LENGTH} characters`,
  customFieldsType: "custom_fields must be an object of field keys to values",
  duplicateEmail: (uuid: string) => `A contact with this email already exists: ${uuid}`,
  duplicatePhone: (uuid: string) => `A contact with this phone already exists: ${uuid}`,
  duplicateExternalId: (uuid: string) => `A contact with this external_id already exists: ${uuid}`,
  externalId: `external_id must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters`,
  notDeleted: "Contact is not deleted",
  bulkSize: `contacts must be an array of 1 to ${MAX_BULK_CONTACTS} contacts`,
  matchOn: "match_on must be one of: external_id, email, phone",
  matchOnMissing: (key: ContactKey) => `match_on is ${key}, but the contact has no ${key}`,
  optOutOnlyTrue: "sms_opt_out can only be set to true: only the person lifts an opt-out, by texting START to your SMS number",
  optOutNeedsPhone: "sms_opt_out needs a phone: an opt-out applies to the contact's phone number",
} as const;

/** What `POST /contacts/bulk` reports for each item. */
export const bulkStatuses = ["created", "updated", "unchanged", "error"] as const;

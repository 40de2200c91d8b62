import { fieldTypes } from "@/db/schema";

/** What a custom field definition may hold, and the messages that say so. */
export const MAX_KEY_LENGTH = 64;
export const FIELD_KEY_PATTERN = new RegExp(`^[a-z][a-z0-9_]{0,${MAX_KEY_LENGTH - 1}}$`);
export const MAX_LABEL_LENGTH = 100;
export const MAX_OPTIONS = 200;
export const MAX_OPTION_LENGTH = 100;
export const optionTypes: readonly string[] = ["select", "multiselect"];

export const fieldMessages = {
  notFound: "Field not found",
  keyFormat: `key must start with a lowercase letter and hold only lowercase letters, digits and underscores (at most ${MAX_KEY_LENGTH} characters)`,
  label: `label must be 1 to ${MAX_LABEL_LENGTH} characters`,
  type: `type must be one of: ${fieldTypes.join(", ")}`,
  optionsRequired: "options are required for select and multiselect fields",
  optionsNotAllowed: "options are only allowed for select and multiselect fields",
  optionsEmpty: "options must contain at least one value",
  optionsTooMany: `options may contain at most ${MAX_OPTIONS} values`,
  optionLength: `options must each be 1 to ${MAX_OPTION_LENGTH} characters`,
  optionsUnique: "options must not repeat",
  optionsType: "options must be an array of strings",
  keyImmutable: "key cannot be changed; archive this field and create a new one",
  typeImmutable: "type cannot be changed; archive this field and create a new one",
  duplicateKey: (uuid: string) => `A field with this key already exists: ${uuid}`,
} as const;

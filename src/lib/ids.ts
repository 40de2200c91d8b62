import { z } from "@hono/zod-openapi";

export const newId = () => crypto.randomUUID();

/** Documents a UUID's fixed length; `z.guid()` already accepts exactly 36 characters. */
const UUID_LENGTH = { minLength: 36, maxLength: 36 };

/** What a path parameter names, where its name alone would be unclear or misleading. */
const PARAM_SUBJECTS: Record<string, string> = {
  agent_uuid: "team member",
  call_uuid: "Voice AI call",
  event_uuid: "event",
  field_uuid: "custom field",
  key_uuid: "API key",
  order_uuid: "lead order",
  webhook_endpoint_uuid: "webhook endpoint",
};

/**
 * A path parameter carrying a UUID; a malformed one is a 400 naming the parameter. Documented as
 * "UUID of the <subject>." with the subject taken from the name (`contact_uuid`: the contact)
 * unless `subject` is given.
 */
export const uuidParam = (name: string, subject = PARAM_SUBJECTS[name] ?? name.replace(/_uuid$/, "").replaceAll("_", " ")) =>
  z
    .guid({ error: `${name} must be a UUID` })
    .openapi({
      param: { name, in: "path" },
      ...UUID_LENGTH,
      description: `UUID of the ${subject}.`,
      example: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70",
    });

export const uuidField = (name: string) => z.guid({ error: `${name} must be a UUID` }).openapi(UUID_LENGTH);

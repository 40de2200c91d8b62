import { z } from "@hono/zod-openapi";
import { messageChannels, messageDirections } from "@/db/schema";
import { instantString, uuidString } from "@/lib/bounded";
import { uuidField, uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { queryBoolean } from "@/lib/query";
import { MAX_DELIVERY_ERROR_LENGTH, MAX_SMS_LENGTH, SMS_OPTED_OUT_MESSAGE } from "@/domain/messages/messages.rules";

export const MAX_NOTE_LENGTH = 10_000;
/** The longest body of any message: both write paths check it by channel (`checkBodyLength`). */
const MAX_BODY_LENGTH = Math.max(MAX_SMS_LENGTH, MAX_NOTE_LENGTH);
export const deliveryStatuses = ["queued", "sent", "delivered", "failed"] as const;

export const messageMessages = {
  notFound: "Message not found",
  unknownContact: "Unknown contact_uuid",
  noPhone: "Contact has no phone number; add one before sending an SMS",
  optedOut: SMS_OPTED_OUT_MESSAGE,
  channel: `channel must be one of: ${messageChannels.join(", ")}`,
  direction: `direction must be one of: ${messageDirections.join(", ")}`,
  bodyRequired: "body is required",
  smsLength: `body must be 1 to ${MAX_SMS_LENGTH} characters for an SMS`,
  noteLength: `body must be 1 to ${MAX_NOTE_LENGTH} characters for a note`,
  directionForChannel: "direction must be inbound or outbound for sms, and internal for note",
} as const;

const messageExample = {
  message_uuid: "9a7c3e21-5b4d-4f6a-8e2c-1d0b9a8f7e65",
  contact_uuid: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21",
  channel: "sms" as const,
  direction: "inbound" as const,
  body: "Hi, is the house on Elm Street still available?",
  delivery_status: null,
  delivery_error: null,
  read_at: null,
  created_at: "2026-11-21T14:05:00.000Z",
};

export const Message = z
  .object({
    message_uuid: uuidString().openapi({ description: "Identifier of the message." }),
    contact_uuid: uuidString().openapi({ description: "The contact the conversation is with." }),
    channel: z.enum(messageChannels).openapi({ description: "`sms` (a text message) or `note` (internal, never sent)." }),
    direction: z
      .enum(messageDirections)
      .openapi({ description: "`inbound` (from the contact), `outbound` (to the contact) or `internal` (a note)." }),
    body: z.string().min(1).max(MAX_BODY_LENGTH).openapi({ description: `1 to ${MAX_SMS_LENGTH} characters for an SMS, 1 to ${MAX_NOTE_LENGTH} for a note.` }),
    delivery_status: z
      .enum(deliveryStatuses)
      .nullable()
      .openapi({
        description:
          "How far an outbound SMS got: `queued` (stored, being sent or waiting for a retry), `sent` (the SMS provider has it), " +
          "`delivered` (the carrier confirmed it) or `failed` (see `delivery_error`). Null for inbound messages and notes.",
      }),
    delivery_error: z
      .string()
      .max(MAX_DELIVERY_ERROR_LENGTH)
      .nullable()
      .openapi({
        description: "Why a `failed` SMS was not delivered, starting with the provider's error code when it gave one (Twilio: `30003 Unreachable destination handset`); null otherwise.",
        example: null,
      }),
    read_at: instantString()
      .nullable()
      .openapi({ description: "When the message was marked read; null while unread. Inbound messages arrive unread; messages you send or write start read." }),
    created_at: instantString(),
  })
  .openapi("Message", { example: messageExample });

export const MessageResponse = z
  .object({ success: z.literal(true), message: Message })
  .openapi("MessageResponse", { example: { success: true, message: messageExample } });

export const MessageListResponse = z
  .object({ success: z.literal(true), messages: z.array(Message).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("MessageListResponse", {
    example: { success: true, messages: [messageExample], pagination: singlePageExample },
  });

export const MessageParams = z.object({ message_uuid: uuidParam("message_uuid") });

export const ListMessagesQuery = paginationQuery.extend({
  contact_uuid: uuidField("contact_uuid")
    .transform((id) => id.toLowerCase())
    .optional()
    .openapi({
      param: { name: "contact_uuid", in: "query" },
      type: "string",
      format: "uuid",
      description: "Only the conversation with this contact.",
      example: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21",
    }),
  channel: z
    .enum(messageChannels, { error: messageMessages.channel })
    .optional()
    .openapi({ param: { name: "channel", in: "query" }, description: "Only `sms` or only `note`.", example: "sms" }),
  unread: queryBoolean("unread", "`true`: only unread messages (`read_at` null); `false`: only read ones. Default: both."),
});

const bodyField = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? messageMessages.bodyRequired : "body must be a string") })
  .trim()
  // Enforced by `checkBodyLength` once the channel is known; the document states the larger limit.
  .openapi({
    minLength: 1,
    maxLength: MAX_BODY_LENGTH,
    description: `The text: 1 to ${MAX_SMS_LENGTH} characters for an SMS, 1 to ${MAX_NOTE_LENGTH} for a note; trimmed.`,
    example: "Thanks! Yes, it is. Would Saturday at 10am work for a viewing?",
  });

/** SMS and notes have different length limits; checked once the channel is known. */
const checkBodyLength = (value: { channel: string; body: string }, ctx: z.RefinementCtx) => {
  const max = value.channel === "sms" ? MAX_SMS_LENGTH : MAX_NOTE_LENGTH;
  if (value.body.length < 1 || value.body.length > max) {
    ctx.addIssue({ code: "custom", path: ["body"], message: value.channel === "sms" ? messageMessages.smsLength : messageMessages.noteLength });
  }
};

const contactField = z
  .guid({ error: (issue) => (issue.input === undefined ? "contact_uuid is required" : "contact_uuid must be a UUID") })
  .transform((id) => id.toLowerCase())
  // z.guid() accepts exactly 36 characters; the transform hides that from the document.
  .openapi({ type: "string", format: "uuid", minLength: 36, maxLength: 36, description: "A live contact of your agency.", example: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21" });

export const CreateMessageBody = z
  .strictObject({
    contact_uuid: contactField,
    channel: z
      .enum(messageChannels, { error: (issue) => (issue.input === undefined ? "channel is required" : messageMessages.channel) })
      .openapi({ description: "`sms` sends a text to the contact's phone; `note` records an internal note.", example: "sms" }),
    body: bodyField,
  })
  .superRefine(checkBodyLength)
  .openapi("CreateMessageRequest", {
    example: { contact_uuid: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21", channel: "sms", body: "Thanks! Would Saturday at 10am work for a viewing?" },
  });

/** Operator row: records a message as the dashboard (or an SMS webhook) saw it. */
export const AdminCreateMessageBody = z
  .strictObject({
    contact_uuid: contactField,
    channel: z.enum(messageChannels, { error: (issue) => (issue.input === undefined ? "channel is required" : messageMessages.channel) }),
    direction: z.enum(messageDirections, { error: (issue) => (issue.input === undefined ? "direction is required" : messageMessages.direction) }),
    body: bodyField,
  })
  .superRefine((value, ctx) => {
    const fits = value.channel === "sms" ? value.direction !== "internal" : value.direction === "internal";
    if (!fits) ctx.addIssue({ code: "custom", path: ["direction"], message: messageMessages.directionForChannel });
    checkBodyLength(value, ctx);
  })
  .openapi("AdminCreateMessage", {
    example: { contact_uuid: "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21", channel: "sms", direction: "inbound", body: "Is the house still available?" },
  });

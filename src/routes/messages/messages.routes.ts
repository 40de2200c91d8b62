import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { CreateMessageBody, ListMessagesQuery, MessageListResponse, MessageParams, MessageResponse, messageMessages } from "./messages.schemas";

const notFoundExample = { 404: { description: "No message with this uuid in your agency.", error: messageMessages.notFound } };

export const listMessages = partnerRoute({
  method: "get",
  path: "/messages",
  operationId: "listMessages",
  tags: ["Messages"],
  summary: "List messages",
  description:
    "The agency's inbox: SMS in both directions and internal notes, newest first, paginated with `page` and `limit`. " +
    "Filter by `contact_uuid` (one conversation), `channel` and `unread`. Messages stay listed when their contact is " +
    "soft-deleted. Inbound SMS arrive unread; mark them with `POST /messages/{message_uuid}/read`.",
  scopes: ["messages"],
  request: { query: ListMessagesQuery },
  errorExamples: { 400: { error: "unread must be true or false" } },
  responses: { 200: jsonContent(MessageListResponse, "One page of messages.") },
});

export const createMessage = partnerRoute({
  method: "post",
  path: "/messages",
  operationId: "createMessage",
  tags: ["Messages"],
  summary: "Send an SMS or add a note",
  description:
    "`channel: sms` texts the contact's phone (`direction: outbound`). The message is stored first and then handed " +
    "to the SMS provider from your agency's SMS number; `delivery_status` is the provider's first answer (`queued`, `sent`, " +
    "`delivered`, or `failed` with the reason and the provider's error code in `delivery_error`; the message is kept so the " +
    "conversation shows the attempt) and moves on as the provider reports delivery, each change a `message.updated` event. " +
    "A contact without a phone is 400. A contact whose phone number is opted out (`sms_opt_out: true`: the number texted " +
    "STOP, or you opted it out) is 409 `sms_opt_out` and nothing is stored or sent, whichever contact holds the number, " +
    "until the person texts START. " +
    "`channel: note` records an internal note on the contact (`direction: internal`), never sent. Both start read. " +
    "The contact must be a live contact of your agency (else 400 `Unknown contact_uuid`). Send an `Idempotency-Key` " +
    "so that a retried request never texts twice.",
  scopes: ["messages"],
  request: { body: jsonBody(CreateMessageBody) },
  errorExamples: {
    400: { error: messageMessages.noPhone },
    409: { description: "The contact's phone number is opted out of SMS (`sms_opt_out`).", code: "sms_opt_out", error: messageMessages.optedOut },
  },
  responses: { 201: jsonContent(MessageResponse, "The stored message, with its delivery status for an SMS.") },
});

export const markMessageRead = partnerRoute({
  method: "post",
  path: "/messages/{message_uuid}/read",
  operationId: "markMessageRead",
  tags: ["Messages"],
  summary: "Mark message read",
  description:
    "Sets `read_at`. Marking a message that is already read keeps its first `read_at`, so the call is safe to repeat.",
  scopes: ["messages"],
  request: { params: MessageParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(MessageResponse, "The message, read.") },
});

export const markMessageUnread = partnerRoute({
  method: "post",
  path: "/messages/{message_uuid}/unread",
  operationId: "markMessageUnread",
  tags: ["Messages"],
  summary: "Mark message unread",
  description: "Clears `read_at`, so the message shows under `unread=true` again. Safe to repeat.",
  scopes: ["messages"],
  request: { params: MessageParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(MessageResponse, "The message, unread.") },
});

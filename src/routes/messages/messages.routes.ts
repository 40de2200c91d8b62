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
    "`channel: sms` texts the contact's phone (`direction: outbound`) from your agency's SMS number. The 201 answers " +
    "as soon as the message is stored: `delivery_status: queued`, with a `message.sent` event. We then send it in the " +
    "background and move it on, each change a `message.updated` event: `sent` once the SMS provider has it, " +
    "`delivered` when the carrier confirms, or `failed` with the reason and the provider's error code in " +
    "`delivery_error`. A refusal that retrying cannot fix (an invalid number) is `failed` at once; a provider that is " +
    "busy, failing or out of reach is retried with backoff for up to an hour before the message is `failed`. " +
    "A message is never sent twice: an attempt whose answer was lost is looked up at the provider before another is " +
    "made. Follow it with `GET /messages/{message_uuid}` or the events; do not send it again while it is `queued`. " +
    "A contact without a phone is 400. A contact whose phone number is opted out (`sms_opt_out: true`: the number texted " +
    "STOP, or you opted it out) is 409 `sms_opt_out` and nothing is stored or sent, whichever contact holds the number, " +
    "until the person texts START; a number that opts out while its message waits is never texted (the message is " +
    "`failed`). " +
    "`channel: note` records an internal note on the contact (`direction: internal`), never sent. Both start read. " +
    "The contact must be a live contact of your agency (else 400 `Unknown contact_uuid`). Send an `Idempotency-Key` " +
    "so that a retried request never stores (and texts) twice.",
  scopes: ["messages"],
  request: { body: jsonBody(CreateMessageBody) },
  errorExamples: {
    400: { error: messageMessages.noPhone },
    409: { description: "The contact's phone number is opted out of SMS (`sms_opt_out`).", code: "sms_opt_out", error: messageMessages.optedOut },
  },
  responses: { 201: jsonContent(MessageResponse, "The stored message; an SMS is `queued` and sent in the background.") },
});

export const getMessage = partnerRoute({
  method: "get",
  path: "/messages/{message_uuid}",
  operationId: "getMessage",
  tags: ["Messages"],
  summary: "Get message",
  description:
    "One message of your agency. For an SMS you sent, `delivery_status` shows how far it got (`queued`, `sent`, " +
    "`delivered` or `failed` with `delivery_error`; each described on the field). The `message.updated` events tell " +
    "the same without polling.",
  scopes: ["messages"],
  request: { params: MessageParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(MessageResponse, "The message.") },
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

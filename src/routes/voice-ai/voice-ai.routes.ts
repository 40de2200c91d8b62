import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { MAX_DIAL_ATTEMPTS, MAX_QUEUE_DELAY_SECONDS } from "@/lib/queues/call-message";
import { MAX_NAME_LENGTH } from "@/domain/contacts/contacts.rules";
import { AgentParams, CallParams, CreateCallBody, ListAgentsQuery, ListCallsQuery, VoiceAgentListResponse, VoiceAgentResponse, VoiceCallListResponse, VoiceCallResponse, VoiceWalletResponse } from "./voice-ai.schemas";
import { voiceMessages } from "@/domain/voice-ai/voice-ai.rules";

const TAG = "Voice AI";
const callNotFound = { 404: { description: "No call with this uuid in your agency.", error: voiceMessages.callNotFound } };

export const listVoiceAgents = partnerRoute({
  method: "get",
  path: "/voice-ai/agents",
  operationId: "listVoiceAgents",
  tags: [TAG],
  summary: "List Voice AI agents",
  description:
    "Lists the agency's Voice AI agents with their outbound phone numbers, oldest first: the first `active` agent is " +
    "the one a call uses when it names none. Agents and numbers are set up by your agency. Paginated with `page` and " +
    "`limit`.",
  scopes: ["voice-ai"],
  request: { query: ListAgentsQuery },
  responses: { 200: jsonContent(VoiceAgentListResponse, "One page of agents.") },
});

export const getVoiceAgent = partnerRoute({
  method: "get",
  path: "/voice-ai/agents/{agent_uuid}",
  operationId: "getVoiceAgent",
  tags: [TAG],
  summary: "Get Voice AI agent",
  description:
    "Returns one agent with its outbound phone numbers; send a number's `outbound_phone_number_uuid` when creating a " +
    "call to choose the caller id.",
  scopes: ["voice-ai"],
  request: { params: AgentParams },
  errorExamples: { 404: { description: "No agent with this uuid in your agency.", error: voiceMessages.agentNotFound } },
  responses: { 200: jsonContent(VoiceAgentResponse, "The agent.") },
});

export const listVoiceCalls = partnerRoute({
  method: "get",
  path: "/voice-ai/calls",
  operationId: "listVoiceCalls",
  tags: [TAG],
  summary: "List Voice AI calls",
  description:
    "Lists the agency's calls, newest first (by `created_at`), optionally only those in one `status` or of one " +
    "`contact_uuid`. Paginated with `page` (default 1) and `limit` (default 20, at most 100); `pagination.total` " +
    "counts every match.",
  scopes: ["voice-ai"],
  request: { query: ListCallsQuery },
  responses: { 200: jsonContent(VoiceCallListResponse, "One page of calls.") },
});

export const createVoiceCall = partnerRoute({
  method: "post",
  path: "/voice-ai/calls",
  operationId: "createVoiceCall",
  tags: [TAG],
  summary: "Create or schedule an outbound call",
  description: [
    "Creates an outbound call placed by a Voice AI agent. `phone` is required (`phone is required`): a 10-digit US " +
      "number or E.164, returned in E.164.",
    "**Contact.** `contact_uuid` links a live contact of your agency (otherwise 400 `Unknown contact_uuid`). Without " +
      "it, a live contact that already has this phone number is linked; failing that, `first_name` and `last_name` " +
      "(both, or neither: `first_name and last_name are required`), or a `contact_name` of two or more words, create a " +
      "contact with this phone (source `voice-ai`): the first word is its first name and the rest its last name, when " +
      `each is at most ${MAX_NAME_LENGTH} characters (otherwise the call has no contact). \`contact_name\` is how the ` +
      "agent addresses the person; it defaults to the contact's name.",
    "**Agent and caller id.** `voice_agent_uuid` must be an active agent of your agency and " +
      "`outbound_phone_number_uuid` one of its numbers (with no agent given, the number's agent is used). Unknown " +
      "or foreign ones are 400. Defaults: the agent named by the `voice.default_voice_agent_uuid` setting (400 while " +
      "it is inactive or gone), else your first active agent (see `GET /voice-ai/agents`), and its first number; " +
      "with no active agent, or an agent without numbers, the call is 400.",
    `**When.** Immediately by default. \`delay_seconds\` (an integer from 0 to ${MAX_QUEUE_DELAY_SECONDS}) dials that ` +
      "many seconds from now. `scheduled_at` dials at a wall-clock time in the agency's calling timezone, " +
      "`YYYY-MM-DDTHH:MM[:SS]`; a time with `Z` or an offset is taken as that instant. Send one or the other, not " +
      "both. A time in the past, or more than 365 days ahead, is 400. Daylight saving time: a wall-clock time that " +
      "does not exist (inside the spring-forward gap, e.g. 02:30 when clocks jump from 02:00 to 03:00) moves forward " +
      "by the gap (03:30); a time that happens twice (the fall-back hour) means the first, earlier one. The response's " +
      "`scheduled_at` is the resolved instant in UTC.",
    "**Calling hours.** Calls are dialed only inside the agency's calling hours (`GET /settings`: `calling_timezone` " +
      "and `calling_hours`, by default 09:00-20:00 every day). A `scheduled_at` outside them is 400 " +
      "(`scheduled_at must fall within calling hours 09:00-19:00 America/New_York`). A call placed at once or with " +
      "`delay_seconds` that falls due outside them is accepted and held: 201 with status `scheduled` and `dispatch_at` " +
      "set to the next opening, when it is dialed. When the hours change, held calls move to the new hours' next " +
      "opening (earlier or later); every call is checked again at the moment of dialing, and a retry after a failed " +
      "dial waits for the hours too.",
    "**Voice settings.** The call is capped at the agency's `voice.max_call_minutes` (the agent hangs up then, " +
      "`ended_reason` `exceeded-max-duration`), and on reaching voicemail the agent follows `voice.voicemail_behavior` " +
      "(`hang_up` or `leave_message`; the call ends `failed`, `voicemail`, uncharged). Both are read when the call is dialed.",
    "**Lifecycle.** A call due within 24 hours is `queued`; a later one (or one held for calling hours) is `scheduled` " +
      "and queued when it falls due. The agent dials at the due time (to within about a minute); the call then becomes " +
      `\`in-progress\` until it ends \`completed\` or \`failed\` (see \`ended_reason\`). A dial the provider cannot place is retried ${MAX_DIAL_ATTEMPTS} ` +
      "times with exponential backoff (30 s, 60 s, 120 s) before the call ends `failed` with `dial-failed`. Poll " +
      "`GET /voice-ai/calls/{call_uuid}` to follow it; cancel with `POST /voice-ai/calls/{call_uuid}/cancel` before it " +
      "is dialed.",
    "**Billing.** Creating a call needs a wallet balance above 0, else 402 `insufficient_funds` (see " +
      "`GET /voice-ai/wallet`); the balance is checked, not reserved. A `completed` call is debited once, for each " +
      "started minute at the agency's rate; failed and canceled calls cost nothing.",
    "Send an `Idempotency-Key` to make a retried create safe: a retry with the same key and body returns the first " +
      "call instead of creating another.",
  ].join("\n\n"),
  scopes: ["voice-ai"],
  request: { body: jsonBody(CreateCallBody) },
  errors: [402],
  errorExamples: {
    400: { error: "phone is required" },
    402: { description: "The wallet balance is 0 or below; add funds first.", error: voiceMessages.insufficientFunds },
  },
  responses: {
    201: jsonContent(
      VoiceCallResponse,
      "The created call: `queued` when it is due within 24 hours inside the calling hours; `scheduled` when it is due " +
        "later, or when it falls due outside the calling hours and is held until they open (then `dispatch_at` says when " +
        "it will be dialed).",
    ),
  },
});

export const getVoiceCall = partnerRoute({
  method: "get",
  path: "/voice-ai/calls/{call_uuid}",
  operationId: "getVoiceCall",
  tags: [TAG],
  summary: "Get Voice AI call",
  description:
    "Returns one call. Poll it to follow the call from `queued` (or `scheduled`) through `in-progress` to `completed` " +
    "or `failed`; once it ended it carries `ended_reason`, `duration_seconds`, `started_at`, `ended_at`, `summary` and " +
    "`cost_cents`.",
  scopes: ["voice-ai"],
  request: { params: CallParams },
  errorExamples: callNotFound,
  responses: { 200: jsonContent(VoiceCallResponse, "The call.") },
});

export const cancelVoiceCall = partnerRoute({
  method: "post",
  path: "/voice-ai/calls/{call_uuid}/cancel",
  operationId: "cancelVoiceCall",
  tags: [TAG],
  summary: "Cancel Voice AI call",
  description:
    "Cancels a call that has not been dialed yet: only a `scheduled` or `queued` call can be canceled, and it is then " +
    "never dialed or charged. A call already `in-progress` or finished (`completed`, `failed`, `canceled`) is 409. " +
    "Answers with the call, `status` `canceled`.",
  scopes: ["voice-ai"],
  request: { params: CallParams },
  errorExamples: {
    ...callNotFound,
    409: { description: "The call was already dialed, finished or canceled.", error: voiceMessages.notCancelable("completed") },
  },
  responses: { 200: jsonContent(VoiceCallResponse, "The canceled call.") },
});

export const getVoiceWallet = partnerRoute({
  method: "get",
  path: "/voice-ai/wallet",
  operationId: "getVoiceWallet",
  tags: [TAG],
  summary: "Get Voice AI wallet",
  description:
    "The agency's Voice AI balance in cents, its currency and the per-minute rate. Your agency adds funds; each " +
    "`completed` call is debited once, for each started minute at `rate_per_minute_cents` (a 61-second call is two " +
    "minutes). Creating a call needs a balance above 0 (else 402 `insufficient_funds`); a call that finishes may take " +
    "the balance below 0.",
  scopes: ["voice-ai"],
  responses: { 200: jsonContent(VoiceWalletResponse, "The wallet.") },
});

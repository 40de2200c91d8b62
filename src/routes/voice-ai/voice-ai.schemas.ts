import { z } from "@hono/zod-openapi";
import { callStatuses } from "@/db/schema";
import { boundedInt, countInt, instantString, integerFormat, MAX_SAFE_INTEGER, uuidString } from "@/lib/bounded";
import { uuidField, uuidParam } from "@/lib/ids";
import { documentedNullable } from "@/lib/openapi";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { e164String, phoneField } from "@/lib/phone";
import { MAX_DATETIME_INPUT_LENGTH } from "@/lib/zoned-time";
import { MAX_CALL_DURATION_SECONDS, MAX_CALL_SUMMARY_LENGTH, MAX_ENDED_REASON_LENGTH, MAX_QUEUE_DELAY_SECONDS } from "@/lib/queues/call-message";
import { MAX_CONTACT_FULL_NAME_LENGTH } from "@/routes/appointments/appointments.schemas";
import { MAX_NAME_LENGTH } from "@/domain/contacts/contacts.rules";
import { voiceMessages } from "@/domain/voice-ai/voice-ai.rules";

export const MAX_CONTACT_NAME_LENGTH = 200;
/** A call's `contact_name`: the one sent, or the contact's full name. */
const MAX_CALL_CONTACT_NAME_LENGTH = Math.max(MAX_CONTACT_NAME_LENGTH, MAX_CONTACT_FULL_NAME_LENGTH);

/** What the operator API accepts for an agent (src/admin/voice.admin.ts): its name and caller ids. */
const MAX_AGENT_NAME_LENGTH = 100;
const MAX_AGENT_PHONE_NUMBERS = 10;


const agentExampleUuid = "a3c1e2d4-5b6f-4a7e-8c9d-0e1f2a3b4c5d";
const numberExampleUuid = "b4d2f3e5-6c7a-4b8f-9d0e-1f2a3b4c5d6e";
const callExampleUuid = "c5e3a4f6-7d8b-4c9a-8e1f-2a3b4c5d6e7f";
const contactExampleUuid = "5d2f8a10-3c4b-4e7a-9f1d-8c6b5a4e3d21";

// ---------------------------------------------------------------------------------------
// Agents

const phoneNumberExample = { outbound_phone_number_uuid: numberExampleUuid, number: "+12125550100" };
const agentExample = {
  agent_uuid: agentExampleUuid,
  name: "Ava (listing follow-up)",
  status: "active" as const,
  phone_numbers: [phoneNumberExample],
  created_at: "2026-11-01T09:00:00.000Z",
  updated_at: "2026-11-01T09:00:00.000Z",
};

export const VoicePhoneNumber = z
  .object({
    outbound_phone_number_uuid: uuidString().openapi({ description: "Send as `outbound_phone_number_uuid` to call from this number." }),
    number: e164String().openapi({ description: "The caller id, E.164." }),
  })
  .openapi("VoicePhoneNumber", { example: phoneNumberExample });

export const VoiceAgent = z
  .object({
    agent_uuid: uuidString().openapi({ description: "Identifier of the agent; send as `voice_agent_uuid` when creating a call." }),
    name: z.string().max(MAX_AGENT_NAME_LENGTH),
    status: z.enum(["active", "inactive"]).openapi({ description: "Only `active` agents place calls." }),
    phone_numbers: z
      .array(VoicePhoneNumber)
      .max(MAX_AGENT_PHONE_NUMBERS)
      .openapi({ description: "Outbound caller ids of the agent, oldest first." }),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("VoiceAgent", { example: agentExample });

export const VoiceAgentResponse = z
  .object({ success: z.literal(true), agent: VoiceAgent })
  .openapi("VoiceAgentResponse", { example: { success: true, agent: agentExample } });

export const VoiceAgentListResponse = z
  .object({ success: z.literal(true), agents: z.array(VoiceAgent).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("VoiceAgentListResponse", {
    example: { success: true, agents: [agentExample], pagination: singlePageExample },
  });

export const AgentParams = z.object({ agent_uuid: uuidParam("agent_uuid", "Voice AI agent") });
export const ListAgentsQuery = paginationQuery;

// ---------------------------------------------------------------------------------------
// Calls

const callExample = {
  call_uuid: callExampleUuid,
  contact_uuid: contactExampleUuid,
  contact_name: "Ada Lovelace",
  phone: "+14155550123",
  direction: "outbound" as const,
  status: "completed" as const,
  ended_reason: "customer-ended-call",
  duration_seconds: 184,
  voice_agent_uuid: agentExampleUuid,
  outbound_phone_number_uuid: numberExampleUuid,
  scheduled_at: "2026-11-21T15:00:00.000Z",
  dispatch_at: null,
  started_at: "2026-11-21T15:00:01.000Z",
  ended_at: "2026-11-21T15:03:05.000Z",
  summary: "Ava reached Ada Lovelace, who confirmed interest in the listing and agreed to a showing on Saturday.",
  cost_cents: 48,
  created_at: "2026-11-21T14:05:00.000Z",
  updated_at: "2026-11-21T15:03:05.000Z",
};

const nullableIso = (description: string) => instantString().nullable().openapi({ description });

export const VoiceCall = z
  .object({
    call_uuid: uuidString().openapi({ description: "Identifier of the call." }),
    contact_uuid: uuidString().nullable().openapi({ description: "The linked contact; null when the call has none." }),
    contact_name: z
      .string()
      .max(MAX_CALL_CONTACT_NAME_LENGTH)
      .nullable()
      .openapi({ description: "Who is called, as the agent will address them." }),
    phone: e164String().openapi({ description: "Destination, E.164." }),
    direction: z.literal("outbound").openapi({ description: "Calls created through the API are `outbound`." }),
    status: z.enum(callStatuses).openapi({
      description:
        "`scheduled` (due more than 24 hours ahead, or held for the agency's calling hours: see `dispatch_at`), " +
        "`queued` (waiting to be dialed), `in-progress` (dialed, until the call ends), then `completed` (the contact " +
        "talked to the agent) or `failed` (see `ended_reason`); `canceled` by you before dialing.",
    }),
    ended_reason: z.string().max(MAX_ENDED_REASON_LENGTH).nullable().openapi({
      description:
        "Why the call ended, in the voice provider's vocabulary: `customer-ended-call`, `assistant-ended-call`, " +
        "`customer-busy`, `customer-did-not-answer`, `voicemail`, `exceeded-max-duration` (the agent hung up at the " +
        "agency's `voice.max_call_minutes`), ... Set by us: `dial-failed` (the provider could not place the call after " +
        "4 attempts), `dispatch-timed-out` (never dialed), `exceeded-max-duration` on a `failed` call (no end reported " +
        "within `voice.max_call_minutes` plus 10 minutes). Null until the call ends and for canceled calls.",
    }),
    duration_seconds: boundedInt(0, MAX_CALL_DURATION_SECONDS)
      .nullable()
      .openapi({ description: `Talk time in seconds, at most ${MAX_CALL_DURATION_SECONDS}; null until the call ends.` }),
    voice_agent_uuid: uuidString().openapi({ description: "The agent that places the call." }),
    outbound_phone_number_uuid: uuidString().nullable().openapi({ description: "The caller id used." }),
    scheduled_at: nullableIso(
      "When the call is due (UTC), for a call created with `scheduled_at` or a `delay_seconds` above 0; null for a call placed at once.",
    ),
    dispatch_at: nullableIso(
      "When a call held for the agency's calling hours (`GET /settings`, `calling_hours`) will be dialed (UTC): the " +
        "next opening after it fell due. Null for a call that never waited for them, and once the call is dialed.",
    ),
    started_at: nullableIso("When the call was dialed or connected (UTC); null until then and for calls that never connected."),
    ended_at: nullableIso("When the call ended (UTC); null until then."),
    summary: z
      .string()
      .max(MAX_CALL_SUMMARY_LENGTH)
      .nullable()
      .openapi({
        description: `The provider's text summary of the conversation, cut to ${MAX_CALL_SUMMARY_LENGTH} characters; null until available.`,
      }),
    cost_cents: countInt()
      .nullable()
      .openapi({ description: "What the call cost the wallet: each started minute at the agency's rate; null until it ends." }),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("VoiceCall", { example: callExample });

export const VoiceCallResponse = z
  .object({ success: z.literal(true), call: VoiceCall })
  .openapi("VoiceCallResponse", { example: { success: true, call: callExample } });

export const VoiceCallListResponse = z
  .object({ success: z.literal(true), calls: z.array(VoiceCall).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("VoiceCallListResponse", {
    example: { success: true, calls: [callExample], pagination: singlePageExample },
  });

export const CallParams = z.object({ call_uuid: uuidParam("call_uuid") });

export const ListCallsQuery = paginationQuery.extend({
  status: z
    .enum(callStatuses, { error: `status must be one of: ${callStatuses.join(", ")}` })
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only calls in this status.", example: "completed" }),
  contact_uuid: uuidField("contact_uuid")
    .transform((id) => id.toLowerCase())
    .optional()
    .openapi({ param: { name: "contact_uuid", in: "query" }, type: "string", format: "uuid", description: "Only calls of this contact.", example: contactExampleUuid }),
});

/** `first_name` and `last_name` create a contact, so they follow the contact's limit. */
const optionalName = (name: "first_name" | "last_name", example: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} cannot be blank`)
    .max(MAX_NAME_LENGTH, `${name} must be at most ${MAX_NAME_LENGTH} characters`)
    .nullish()
    .openapi({
      description: "Send with the other name field: creates a contact with this phone when none of your live contacts has it.",
      example,
    });

export const CreateCallBody = z
  .strictObject({
    phone: phoneField("phone").openapi({
      description: "Destination: a 10-digit US number (punctuation allowed) or E.164. Required; returned in E.164.",
      example: "(415) 555-0123",
    }),
    contact_uuid: uuidField("contact_uuid")
      .transform((id) => id.toLowerCase())
      .nullish()
      .openapi({ ...documentedNullable, type: "string", format: "uuid", description: "Link this live contact of your agency.", example: contactExampleUuid }),
    first_name: optionalName("first_name", "Ada"),
    last_name: optionalName("last_name", "Lovelace"),
    contact_name: z
      .string({ error: "contact_name must be a string" })
      .trim()
      .min(1, "contact_name cannot be blank")
      .max(MAX_CONTACT_NAME_LENGTH, `contact_name must be at most ${MAX_CONTACT_NAME_LENGTH} characters`)
      .nullish()
      .openapi({ description: "How the agent addresses the contact; defaults to the contact's first and last name.", example: "Ada Lovelace" }),
    voice_agent_uuid: uuidField("voice_agent_uuid")
      .transform((id) => id.toLowerCase())
      .nullish()
      .openapi({
        ...documentedNullable,
        type: "string",
        format: "uuid",
        description: "An active agent of your agency; default: the agency's `voice.default_voice_agent_uuid` setting, else your first active agent.",
        example: agentExampleUuid,
      }),
    outbound_phone_number_uuid: uuidField("outbound_phone_number_uuid")
      .transform((id) => id.toLowerCase())
      .nullish()
      .openapi({
        ...documentedNullable,
        type: "string",
        format: "uuid",
        description: "Caller id: one of the agent's `phone_numbers`; default: the agent's first number.",
        example: numberExampleUuid,
      }),
    delay_seconds: z
      .number({ error: voiceMessages.delay })
      .int({ error: voiceMessages.delay })
      .min(0, { error: voiceMessages.delay })
      .max(MAX_QUEUE_DELAY_SECONDS, { error: voiceMessages.delay })
      .nullish()
      .openapi({
        description: `Dial this many seconds from now: an integer from 0 to ${MAX_QUEUE_DELAY_SECONDS}.`,
        format: integerFormat(0, MAX_QUEUE_DELAY_SECONDS),
        example: 0,
      }),
    scheduled_at: z
      .string({ error: voiceMessages.scheduledFormat })
      .max(MAX_DATETIME_INPUT_LENGTH, { error: voiceMessages.scheduledFormat })
      .nullish()
      .openapi({
        description:
          "Dial at this wall-clock time in the agency's calling timezone, `YYYY-MM-DDTHH:MM[:SS]` (e.g. `2026-12-01T10:00`). " +
          "An ISO 8601 time with `Z` or an offset is also accepted as that exact instant. It must fall within the agency's " +
          "calling hours.",
        example: "2026-12-01T10:00",
      }),
  })
  .superRefine((body, ctx) => {
    if (body.delay_seconds != null && body.scheduled_at != null) {
      ctx.addIssue({ code: "custom", path: ["scheduled_at"], message: voiceMessages.delayAndSchedule });
    }
    if ((body.first_name == null) !== (body.last_name == null)) {
      ctx.addIssue({ code: "custom", path: [body.first_name == null ? "first_name" : "last_name"], message: voiceMessages.namesRequired });
    }
  })
  .openapi("CreateVoiceCallRequest", {
    example: {
      phone: "(415) 555-0123",
      first_name: "Ada",
      last_name: "Lovelace",
      voice_agent_uuid: agentExampleUuid,
      scheduled_at: "2026-12-01T10:00",
    },
  });

// ---------------------------------------------------------------------------------------
// Wallet

const walletExample = {
  balance_cents: 4952,
  currency: "USD",
  rate_per_minute_cents: 12,
  updated_at: "2026-11-21T15:03:05.000Z",
};

/** An ISO 4217 alphabetic code (`USD`). */
const CURRENCY_CODE = /^[A-Z]{3}$/;
const CURRENCY_CODE_LENGTH = 3;

export const VoiceWallet = z
  .object({
    balance_cents: boundedInt(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER).openapi({
      description: "Balance in cents. Creating a call needs a balance above 0; a finished call may take it below 0.",
    }),
    currency: z
      .string()
      .length(CURRENCY_CODE_LENGTH)
      .regex(CURRENCY_CODE)
      .openapi({ description: "ISO 4217 currency of the balance.", example: "USD" }),
    rate_per_minute_cents: countInt().openapi({ description: "What each started minute of a completed call costs." }),
    updated_at: instantString().nullable().openapi({ description: "Last change of the balance; null before the first credit." }),
  })
  .openapi("VoiceWallet", { example: walletExample });

export const VoiceWalletResponse = z
  .object({ success: z.literal(true), wallet: VoiceWallet })
  .openapi("VoiceWalletResponse", { example: { success: true, wallet: walletExample } });

import { MAX_QUEUE_DELAY_SECONDS } from "@/lib/queues/call-message";

/** How far ahead a call may be scheduled. */
export const MAX_SCHEDULE_DAYS = 365;

export const voiceMessages = {
  agentNotFound: "Voice agent not found",
  callNotFound: "Call not found",
  delay: `delay_seconds must be an integer from 0 to ${MAX_QUEUE_DELAY_SECONDS}`,
  delayAndSchedule: "Send either delay_seconds or scheduled_at, not both",
  scheduledFormat:
    "scheduled_at must be a wall-clock time YYYY-MM-DDTHH:MM[:SS] in the agency's calling timezone, or an ISO 8601 time with an offset",
  scheduledPast: "scheduled_at must be in the future",
  scheduledTooFar: `scheduled_at must be within ${MAX_SCHEDULE_DAYS} days`,
  namesRequired: "first_name and last_name are required",
  unknownContact: "Unknown contact_uuid",
  unknownAgent: "Unknown voice_agent_uuid",
  inactiveAgent: "voice_agent_uuid is not active",
  unknownNumber: "Unknown outbound_phone_number_uuid",
  numberOfOtherAgent: "outbound_phone_number_uuid does not belong to voice_agent_uuid",
  noAgent: "No active voice agent: ask your agency to set one up, or send voice_agent_uuid",
  noNumber: "The voice agent has no outbound phone number: send outbound_phone_number_uuid or ask your agency to add one",
  insufficientFunds: "Insufficient wallet balance",
  outsideCallingHours: (window: string) => `scheduled_at must fall within calling hours ${window}`,
  defaultAgentGone:
    "voice.default_voice_agent_uuid (GET /settings) names a Voice AI agent that no longer exists: send voice_agent_uuid, or change the setting with PATCH /settings",
  defaultAgentInactive:
    "voice.default_voice_agent_uuid (GET /settings) names an inactive Voice AI agent: send voice_agent_uuid, or change the setting with PATCH /settings",
  notCancelable: (status: string) => `Only scheduled or queued calls can be canceled; this call is ${status}`,
} as const;

/** A call as `POST /voice-ai/calls` asks for it, once the route's schema (`CreateVoiceCallRequest`) has parsed it. */
export interface CallRequest {
  phone: string;
  contact_uuid?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  contact_name?: string | null;
  voice_agent_uuid?: string | null;
  outbound_phone_number_uuid?: string | null;
  delay_seconds?: number | null;
  scheduled_at?: string | null;
}

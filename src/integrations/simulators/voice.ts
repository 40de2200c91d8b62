import { voicemailMessageFor } from "@/domain/voice-ai/voicemail";
import { ProviderError, type CallOutcome, type DialRequest, type PollRequest, type ProviderCallState, type VoiceProvider } from "@/domain/voice-ai/voice-provider";

/**
 * The default provider: no phone network, but the timing of a real one. Everything is derived
 * from the call id, the number and the dial request, so a test can predict it:
 * - a call that connects is `active` from the dial until its duration has passed, then ends
 *   `completed`: duration 35..300 s from a hash of the call id, capped at the request's
 *   `maxDurationSeconds` (then `exceeded-max-duration`, else `customer-ended-call`), with a
 *   short summary naming the contact;
 * - the last four digits of the number pick another outcome, like a payment provider's test
 *   cards: `0002` customer-busy and `0003` customer-did-not-answer (`failed` at once, no
 *   duration); `0004` reaches voicemail: with `hang_up` it ends `failed` at once, with
 *   `leave_message` the agent speaks for VOICEMAIL_MESSAGE_SECONDS and then it ends `failed`;
 *   `0008` fails to dial on the first attempt only; `0009` never dials (a retryable error).
 * `speed` runs the simulated clock faster for local use (SIMULATED_CALL_SPEED): at 20, a
 * 200-second call lasts 10 seconds, and its record says 10 seconds, so `started_at`,
 * `ended_at` and `duration_seconds` always agree with each other and with the wall clock.
 */
const SIMULATED_FAILURES = {
  "0002": "customer-busy",
  "0003": "customer-did-not-answer",
} as const;

const VOICEMAIL_SUFFIX = "0004";
export const VOICEMAIL_MESSAGE_SECONDS = 20;

/** FNV-1a: a small, stable hash so durations are the same for the same call on every run. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** How long the contact would talk, before the maximum duration and the clock speed apply. */
export const simulatedDuration = (callId: string) => 35 + (hash(callId) % 266);

const suffixOf = (request: DialRequest) => request.phone.slice(-4);
const who = (request: DialRequest, startsSentence = false) => request.contactName ?? (startsSentence ? "The contact" : "the contact");

/** A call that ends the moment it is dialed, never connected. */
const endedAtDial = (request: DialRequest, endedReason: string): CallOutcome => ({
  status: "failed",
  endedReason,
  startedAt: null,
  endedAt: request.now,
  durationSeconds: 0,
  summary: null,
});

interface Conversation {
  /** Seconds on the (sped-up) wall clock. */
  seconds: number;
  status: CallOutcome["status"];
  endedReason: string;
  summary: (seconds: number) => string;
}

/** What happens once the call connects, or null when it never does. */
function conversationOf(request: DialRequest, speed: number): Conversation | null {
  const scaled = (seconds: number) => Math.max(1, Math.round(seconds / speed));
  if (suffixOf(request) === VOICEMAIL_SUFFIX) {
    if (request.voicemailBehavior !== "leave_message") return null;
    return {
      seconds: scaled(VOICEMAIL_MESSAGE_SECONDS),
      status: "failed",
      endedReason: "voicemail",
      summary: () => `${request.agent.name} reached the voicemail of ${who(request)} and left a message: "${voicemailMessageFor(request)}"`,
    };
  }
  if (suffixOf(request) in SIMULATED_FAILURES) return null;
  const talk = simulatedDuration(request.callId);
  const capped = talk > request.maxDurationSeconds;
  return {
    seconds: scaled(Math.min(talk, request.maxDurationSeconds)),
    status: "completed",
    endedReason: capped ? "exceeded-max-duration" : "customer-ended-call",
    summary: (seconds) => {
      const minutes = Math.max(1, Math.round(seconds / 60));
      const ending = capped ? "the agent ended the call at the maximum call length" : "the contact ended the call";
      return (
        `${request.agent.name} reached ${who(request)} at ${request.phone}. ${who(request, true)} confirmed interest, asked about next ` +
        `steps and agreed to a follow-up; ${ending} after about ${minutes} minute${minutes === 1 ? "" : "s"}.`
      );
    },
  };
}

export function createSimulatedProvider(options: { speed?: number } = {}): VoiceProvider {
  const speed = options.speed && options.speed > 0 ? options.speed : 1;
  return {
    name: "simulated",
    async startCall(request) {
      const suffix = suffixOf(request);
      if (suffix === "0009" || (suffix === "0008" && request.attempt === 1)) {
        throw new ProviderError("Simulated provider: the carrier did not accept the call", { retryable: true, status: 503 });
      }
      const providerCallId = `sim_${request.callId}`;
      const conversation = conversationOf(request, speed);
      if (!conversation) {
        const reason = suffix === VOICEMAIL_SUFFIX ? "voicemail" : SIMULATED_FAILURES[suffix as keyof typeof SIMULATED_FAILURES];
        return { state: "ended", providerCallId, outcome: endedAtDial(request, reason) };
      }
      return { state: "active", providerCallId, pollAfterSeconds: conversation.seconds };
    },
    async getCall(request: PollRequest): Promise<ProviderCallState> {
      const conversation = conversationOf(request, speed);
      if (request.providerCallId !== `sim_${request.callId}` || !conversation) {
        throw new ProviderError(`Simulated provider: unknown call ${request.providerCallId}`, { retryable: false, status: 404 });
      }
      const started = Date.parse(request.startedAt);
      const ends = started + conversation.seconds * 1000;
      const now = Date.parse(request.now);
      if (now < ends) return { state: "active", providerCallId: request.providerCallId, pollAfterSeconds: Math.ceil((ends - now) / 1000) };
      return {
        state: "ended",
        providerCallId: request.providerCallId,
        outcome: {
          status: conversation.status,
          endedReason: conversation.endedReason,
          startedAt: new Date(started).toISOString(),
          endedAt: new Date(ends).toISOString(),
          durationSeconds: conversation.seconds,
          summary: conversation.summary(conversation.seconds),
        },
      };
    },
  };
}

/** The simulator at real speed: what tests and deployments without SIMULATED_CALL_SPEED get. */
export const simulatedProvider = createSimulatedProvider();

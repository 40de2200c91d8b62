import { ProviderError, type CallOutcome, type DialRequest, type VoiceProvider } from "./types";

/**
 * The default provider: no phone network, a believable record at once. Everything is derived
 * from the call id and the number, so a test can predict it:
 * - duration 35..300 s from a hash of the call id; the call starts at the dial and ends
 *   `duration_seconds` later, with a short summary naming the contact;
 * - the last four digits of the number pick an outcome, like a payment provider's test cards:
 *   `0002` customer-busy, `0003` customer-did-not-answer, `0004` voicemail (all `failed`,
 *   no duration), `0008` fails to dial on the first attempt only, `0009` never dials
 *   (a retryable provider error every time); any other number ends `customer-ended-call`.
 */
export const SIMULATED_FAILURES = {
  "0002": "customer-busy",
  "0003": "customer-did-not-answer",
  "0004": "voicemail",
} as const;

/** FNV-1a: a small, stable hash so durations are the same for the same call on every run. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const simulatedDuration = (callId: string) => 35 + (hash(callId) % 266);

function summaryFor(request: DialRequest, durationSeconds: number): string {
  const who = request.contactName ?? "The contact";
  const minutes = Math.max(1, Math.round(durationSeconds / 60));
  return (
    `${request.agent.name} reached ${who} at ${request.phone}. ${who} confirmed interest, asked about next steps ` +
    `and agreed to a follow-up; the contact ended the call after about ${minutes} minute${minutes === 1 ? "" : "s"}.`
  );
}

export function simulatedOutcome(request: DialRequest): CallOutcome {
  const suffix = request.phone.slice(-4);
  const failure = SIMULATED_FAILURES[suffix as keyof typeof SIMULATED_FAILURES];
  if (failure) {
    return { status: "failed", endedReason: failure, startedAt: null, endedAt: request.now, durationSeconds: 0, summary: null };
  }
  const durationSeconds = simulatedDuration(request.callId);
  const started = new Date(request.now);
  return {
    status: "completed",
    endedReason: "customer-ended-call",
    startedAt: started.toISOString(),
    endedAt: new Date(started.getTime() + durationSeconds * 1000).toISOString(),
    durationSeconds,
    summary: summaryFor(request, durationSeconds),
  };
}

export const simulatedProvider: VoiceProvider = {
  name: "simulated",
  async startCall(request) {
    const suffix = request.phone.slice(-4);
    if (suffix === "0009" || (suffix === "0008" && request.attempt === 1)) {
      throw new ProviderError("Simulated provider: the carrier did not accept the call", { retryable: true, status: 503 });
    }
    return { state: "ended", providerCallId: `sim_${request.callId}`, outcome: simulatedOutcome(request) };
  },
  async getCall(providerCallId) {
    // Simulated calls end inside startCall, so nothing is ever left to poll.
    throw new ProviderError(`Simulated provider: unknown call ${providerCallId}`, { retryable: false, status: 404 });
  },
};

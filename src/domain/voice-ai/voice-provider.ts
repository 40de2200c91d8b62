import type { VoicemailBehavior } from "@/db/schema";

/**
 * The seam between dispatch and whoever places the phone call. Dispatch owns the call's
 * state in D1 (claim, retries, completion, billing); a provider only dials and reports.
 */

export interface DialRequest {
  callId: string;
  agencyId: string;
  /** The agency's `agency_name`, which the agent gives in a voicemail message. */
  agencyName: string | null;
  /** Destination in E.164. */
  phone: string;
  contactName: string | null;
  agent: { id: string; name: string; providerAgentId: string | null };
  fromNumber: { id: string; number: string; providerNumberId: string | null } | null;
  /** 1 for the first dial, 2 for the first retry, ... */
  attempt: number;
  /** The provider must hang up by then (the agency's `voice.max_call_minutes`). */
  maxDurationSeconds: number;
  /** What the agent does on reaching voicemail (the agency's `voice.voicemail_behavior`). */
  voicemailBehavior: VoicemailBehavior;
  /** The instant of the dial, ISO 8601. */
  now: string;
}


/** A call the provider placed, asked about again: the dial request it was placed with, and when. */
export interface PollRequest extends DialRequest {
  providerCallId: string;
  /** When the call was dialed, ISO 8601. */
  startedAt: string;
}

/** How a call ended, in the provider's vocabulary (`customer-ended-call`, `customer-busy`, ...). */
export interface CallOutcome {
  status: "completed" | "failed";
  endedReason: string;
  startedAt: string | null;
  endedAt: string;
  durationSeconds: number;
  summary: string | null;
}

export type ProviderCallState =
  | { state: "ended"; providerCallId: string; outcome: CallOutcome }
  | { state: "active"; providerCallId: string; pollAfterSeconds: number };

export interface VoiceProvider {
  readonly name: string;
  /** Places the call. Throws ProviderError when it could not. */
  startCall(request: DialRequest): Promise<ProviderCallState>;
  /** The current state of a call this provider placed (`now` is the poll's instant). Throws ProviderError when unknown. */
  getCall(request: PollRequest): Promise<ProviderCallState>;
}

/**
 * A provider could not do what was asked. `retryable` failures (network, timeouts, 429,
 * 5xx) are retried with backoff; others (a rejected request) fail the call at once.
 */
export class ProviderError extends Error {
  readonly retryable: boolean;
  readonly status?: number;

  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "ProviderError";
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

import { ProviderError, type CallOutcome, type DialRequest, type PollRequest, type ProviderCallState, type VoiceProvider } from "@/domain/voice-ai/voice-provider";
import { POLL_INTERVAL_SECONDS } from "@/lib/queues/call-message";
import { isoWithin } from "@/lib/time";
import { voicemailMessageFor } from "@/domain/voice-ai/voicemail";

/** Where Vapi posts its server messages (src/integrations/vapi/vapi.routes.ts). */
export const VAPI_EVENTS_PATH = "/providers/vapi/events";

/**
 * Vapi's call API (https://docs.vapi.ai/api-reference/calls/create):
 * `POST /call` with `assistantId`, `phoneNumberId` and `customer.number` places an outbound
 * call and answers with the call (status `queued`); `GET /call/{id}` reports its progress
 * (`queued`, `ringing`, `in-progress`, `forwarding`, `ended`) and, once `ended`, its
 * `endedReason`, `startedAt`, `endedAt` and `analysis.summary`. Dispatch polls until then.
 *
 * The agency's voice settings travel as `assistantOverrides`: `maxDurationSeconds` (Vapi hangs
 * up then, with `exceeded-max-duration`), and voicemail detection with a `voicemailMessage`
 * for `leave_message`; without a message Vapi ends the call when it detects voicemail
 * (https://docs.vapi.ai/calls/voicemail-detection).
 *
 * Vapi has no idempotency key: a timeout after Vapi accepted the call cannot be told apart
 * from one before, and is retried like any other network failure.
 */
export const DEFAULT_VAPI_BASE_URL = "https://api.vapi.ai";
const REQUEST_TIMEOUT_MS = 10_000;

/** Reasons that mean nobody talked to the agent: the call is `failed` and not charged. */
const NOT_CONNECTED_REASONS = new Set([
  "customer-busy",
  "customer-did-not-answer",
  "customer-did-not-give-microphone-permission",
  "voicemail",
  "twilio-failed-to-connect-call",
  "vonage-failed-to-connect-call",
  "vonage-rejected",
  "manually-canceled",
  "phone-call-provider-closed-websocket",
]);

export const isFailedReason = (reason: string) =>
  NOT_CONNECTED_REASONS.has(reason) || /(^|[-.])(error|failed|fault|rejected)([-.]|$)/.test(reason) || reason.startsWith("call.start.error");

export interface VapiConfig {
  apiKey: string;
  baseUrl?: string;
  /** The fetch to use; tests pass a fake upstream. */
  fetch?: typeof fetch;
  /**
   * Where Vapi sends each call's server messages (`status-update`, `end-of-call-report`), with
   * the secret it echoes in `x-vapi-secret`: POST /providers/vapi/events. Without it, calls
   * are only polled.
   */
  server?: { url: string; secret: string };
}

/** Where one call's server messages go: the events URL naming the call and its agency. */
export const vapiServerUrl = (base: string, req: Pick<DialRequest, "callId" | "agencyId">) =>
  `${base}?${new URLSearchParams({ call: req.callId, agency: req.agencyId })}`;

/** The server messages a call asks for: enough to end it without a poll. */
export const VAPI_SERVER_MESSAGES = ["status-update", "end-of-call-report"] as const;


const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * An instant as the API stores it, or null. Stored instants have 4-digit years (src/lib/time.ts):
 * a time outside years 0000 to 9999 is not a real report and counts as missing.
 */
const isoOrNull = (value: unknown) => {
  const s = text(value);
  if (!s) return null;
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  return iso === isoWithin(ms) ? iso : null;
};

export interface VapiCall {
  id?: unknown;
  status?: unknown;
  endedReason?: unknown;
  startedAt?: unknown;
  endedAt?: unknown;
  summary?: unknown;
  analysis?: { summary?: unknown } | null;
}

export function vapiCallState(call: VapiCall, now: string): ProviderCallState {
  const providerCallId = text(call.id);
  if (!providerCallId) throw new ProviderError("Vapi answered without a call id", { retryable: true });
  if (call.status !== "ended") return { state: "active", providerCallId, pollAfterSeconds: POLL_INTERVAL_SECONDS };
  const endedReason = text(call.endedReason) ?? "unknown";
  const startedAt = isoOrNull(call.startedAt);
  const endedAt = isoOrNull(call.endedAt) ?? now;
  const durationSeconds = startedAt ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000)) : 0;
  const failed = isFailedReason(endedReason) || !startedAt;
  const outcome: CallOutcome = {
    status: failed ? "failed" : "completed",
    endedReason,
    startedAt,
    endedAt,
    durationSeconds,
    summary: text(call.analysis?.summary) ?? text(call.summary),
  };
  return { state: "ended", providerCallId, outcome };
}

/**
 * A server message Vapi posts about a call (https://docs.vapi.ai/server-url/events): its type,
 * the call as Vapi has it then, and for `status-update` the call's new `status` (with
 * `endedReason` once `ended`); the `end-of-call-report` also carries the times and the analysis.
 */
export interface VapiServerMessage {
  type?: unknown;
  status?: unknown;
  call?: VapiCall;
  endedReason?: unknown;
  startedAt?: unknown;
  endedAt?: unknown;
  summary?: unknown;
  analysis?: { summary?: unknown } | null;
}

/** The message's fields over the call's own, which may be older. */
const messageCall = (message: VapiServerMessage, providerCallId: string, status: unknown): VapiCall => ({
  ...message.call,
  id: providerCallId,
  status,
  endedReason: message.endedReason ?? message.call?.endedReason,
  startedAt: message.startedAt ?? message.call?.startedAt,
  endedAt: message.endedAt ?? message.call?.endedAt,
  analysis: message.analysis ?? message.call?.analysis,
  summary: message.summary ?? message.call?.summary,
});

/**
 * What a server message says of its call, as the state a poll would find (vapiCallState), or
 * undefined for a message that says nothing of the call's progress (transcripts, tool calls). An
 * `end-of-call-report` ends the call. A `status-update` ends it only when it says how: with when
 * the call started, or with a reason that means nobody answered; an `ended` update without a
 * start time could be a short conversation or no answer at all, so it only says the call is
 * alive, and the report or the poll (which know) end it.
 */
export function vapiServerMessageState(message: VapiServerMessage, providerCallId: string, now: string): ProviderCallState | undefined {
  if (message.type === "end-of-call-report") return vapiCallState(messageCall(message, providerCallId, "ended"), now);
  if (message.type !== "status-update") return undefined;
  const state = vapiCallState(messageCall(message, providerCallId, message.status ?? message.call?.status), now);
  if (state.state === "ended" && state.outcome.startedAt === null && !isFailedReason(state.outcome.endedReason)) {
    return { state: "active", providerCallId, pollAfterSeconds: POLL_INTERVAL_SECONDS };
  }
  return state;
}

export function createVapiProvider(config: VapiConfig): VoiceProvider {
  const baseUrl = (config.baseUrl || DEFAULT_VAPI_BASE_URL).replace(/\/+$/, "");
  const doFetch = config.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function request(method: "GET" | "POST", path: string, body?: unknown): Promise<VapiCall> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${config.apiKey}`,
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ProviderError(`Vapi ${method} ${path} failed: ${(error as Error).message}`, { retryable: true, cause: error });
    }
    const raw = await response.text();
    if (!response.ok) {
      // 408/429 and 5xx are Vapi's or the network's trouble: try again later. Other 4xx mean
      // the request itself is wrong (unknown assistant, bad number): retrying cannot help.
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      const detail = raw.slice(0, 300).replace(/\s+/g, " ");
      throw new ProviderError(`Vapi ${method} ${path} answered ${response.status}: ${detail}`, { retryable, status: response.status });
    }
    try {
      return JSON.parse(raw) as VapiCall;
    } catch (error) {
      throw new ProviderError(`Vapi ${method} ${path} answered with invalid JSON`, { retryable: true, cause: error });
    }
  }

  return {
    name: "vapi",
    async startCall(req: DialRequest) {
      if (!req.agent.providerAgentId) {
        throw new ProviderError(`Voice agent ${req.agent.id} has no Vapi assistant id (provider_agent_id)`, { retryable: false });
      }
      if (!req.fromNumber?.providerNumberId) {
        throw new ProviderError("The call's outbound number has no Vapi phone number id (provider_number_id)", { retryable: false });
      }
      const call = await request("POST", "/call", {
        // Vapi caps a call's name at 40 characters: the prefix and the 36 of the id.
        name: `PA ${req.callId}`,
        assistantId: req.agent.providerAgentId,
        phoneNumberId: req.fromNumber.providerNumberId,
        customer: { number: req.phone, ...(req.contactName ? { name: req.contactName.slice(0, 40) } : {}) },
        assistantOverrides: {
          maxDurationSeconds: req.maxDurationSeconds,
          voicemailDetection: { provider: "vapi" },
          ...(req.voicemailBehavior === "leave_message" ? { voicemailMessage: voicemailMessageFor(req) } : {}),
          // The call and its agency ride in the server URL, so a report is routed whatever Vapi
          // echoes back; the secret goes as the header Vapi sends with every server message.
          ...(config.server
            ? {
                server: { url: vapiServerUrl(config.server.url, req), headers: { "x-vapi-secret": config.server.secret } },
                serverMessages: [...VAPI_SERVER_MESSAGES],
              }
            : {}),
          metadata: { call_uuid: req.callId, agency_uuid: req.agencyId },
        },
      });
      return vapiCallState(call, req.now);
    },
    async getCall(req: PollRequest) {
      return vapiCallState(await request("GET", `/call/${encodeURIComponent(req.providerCallId)}`), req.now);
    },
  };
}

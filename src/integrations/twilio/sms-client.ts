import type { DeliveryStatus, LookupOutcome, OutboundSms, RetryableFailure, SendOutcome, SmsProvider } from "@/domain/messages/sms-provider";

/** The path Twilio reports delivery to (src/integrations/twilio/twilio.routes.ts). */
export const TWILIO_STATUS_PATH = "/providers/twilio/status";

/**
 * Twilio's Messages API over fetch (https://www.twilio.com/docs/messaging/api/message-resource),
 * HTTP Basic auth with the account SID and auth token:
 * - send: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From`,
 *   `Body` and `StatusCallback`. A 201 answers the message with its `sid` and `status` (`queued`
 *   or `accepted`); later states arrive at the StatusCallback. An error answers
 *   `{ code, message, more_info, status }`: a 429 (Twilio's 20429, with `Retry-After`) or a 5xx
 *   is worth retrying; any other 4xx refuses the message for good (an invalid or unreachable
 *   number, an unverified sender), and Twilio's code is kept in the message's `delivery_error`.
 * - look-up: `GET /2010-04-01/Accounts/{AccountSid}/Messages.json?To=&From=&PageSize=`, newest
 *   first, `{ messages: [...], next_page_uri }`. A message's resource does not show the
 *   StatusCallback it was given, and `DateSent` is empty until a carrier has it, so a message an
 *   unanswered attempt created is found by what Twilio does show: sent to this number, from this
 *   number, with this body, created since the first attempt (docs/decisions/real-providers.md).
 */
export const DEFAULT_TWILIO_BASE_URL = "https://api.twilio.com";
const REQUEST_TIMEOUT_MS = 10_000;
/** One page of the pair's latest messages covers an hour of texts between two numbers many times over. */
const LOOKUP_PAGE_SIZE = 50;
const LOOKUP_MAX_PAGES = 3;
/** Our clock and Twilio's may disagree a little: a message created this much before `since` still counts. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  baseUrl?: string;
  /** Where Twilio reports each message's delivery: `<PUBLIC_BASE_URL>/providers/twilio/status`. */
  statusCallbackUrl: string | null;
  fetch?: typeof fetch;
}

/** Twilio's message states, in the API's four. */
const STATUS: Record<string, DeliveryStatus> = {
  accepted: "queued",
  scheduled: "queued",
  queued: "queued",
  sending: "sent",
  sent: "sent",
  delivered: "delivered",
  read: "delivered",
  undelivered: "failed",
  failed: "failed",
  canceled: "failed",
};

export const twilioStatus = (status: string | null | undefined): DeliveryStatus | undefined => (status ? STATUS[status] : undefined);

/** `30003 Unreachable destination handset`: Twilio's code first, as partners search for it. */
export const twilioError = (code: unknown, message: unknown) => {
  const text = [code, message].filter((part) => part !== null && part !== undefined && String(part).length > 0).join(" ");
  return text.length > 0 ? text : null;
};

/** The fields of Twilio's answers we read: a message resource, a page of them, or an error. */
interface TwilioMessage {
  sid?: unknown;
  status?: unknown;
  to?: unknown;
  from?: unknown;
  body?: unknown;
  direction?: unknown;
  date_created?: unknown;
  error_code?: unknown;
  error_message?: unknown;
}
interface TwilioAnswer extends TwilioMessage {
  code?: unknown;
  message?: unknown;
  messages?: unknown;
  next_page_uri?: unknown;
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** A message resource in the port's terms. */
function providerMessage(m: TwilioMessage) {
  const status = twilioStatus(text(m.status)) ?? "queued";
  return { providerMessageId: text(m.sid), status, error: status === "failed" ? (twilioError(m.error_code, m.error_message) ?? "failed") : null };
}

export function createTwilioSmsProvider(config: TwilioConfig): SmsProvider {
  const baseUrl = (config.baseUrl || DEFAULT_TWILIO_BASE_URL).replace(/\/+$/, "");
  const doFetch = config.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const auth = `Basic ${btoa(`${config.accountSid}:${config.authToken}`)}`;
  const messagesPath = `/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;

  /**
   * One request to Twilio and its JSON answer. No answer at all (a timeout, a dropped or refused
   * connection) is a retryable failure that may have created the message: the request may have
   * reached Twilio before the answer was lost.
   */
  async function call(url: string, init: RequestInit): Promise<{ response: Response; answer: TwilioAnswer } | RetryableFailure> {
    let response: Response;
    try {
      response = await doFetch(url, { ...init, headers: { Authorization: auth, Accept: "application/json", ...init.headers }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      const timedOut = (error as Error).name === "TimeoutError";
      const why = timedOut ? `No answer from Twilio within ${REQUEST_TIMEOUT_MS / 1000} s` : `Twilio could not be reached: ${(error as Error).message}`;
      return { outcome: "retry", error: why, retryAfterSeconds: null, maybeSent: true };
    }
    // An answer cut short still has its status code, which says what happened.
    const answer = ((await response.json().catch(() => null)) ?? {}) as TwilioAnswer;
    return { response, answer };
  }

  /** A failed answer as the port's outcome: a 429 or 5xx is retried (a 5xx may come after Twilio stored the message); any other refusal is final. */
  function failure(response: Response, answer: TwilioAnswer): Exclude<SendOutcome, { outcome: "accepted" }> {
    const error = twilioError(answer.code, answer.message) ?? `Twilio answered ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      return { outcome: "retry", error, retryAfterSeconds: retryAfterSeconds(response.headers.get("Retry-After")), maybeSent: response.status >= 500 };
    }
    return { outcome: "refused", error };
  }

  return {
    name: "twilio",

    async send({ to, from, body, ref }: OutboundSms): Promise<SendOutcome> {
      if (!from) return { outcome: "refused", error: "The agency has no SMS sender number" };
      const form = new URLSearchParams({ To: to, From: from, Body: body });
      // The report names its message and agency in the URL Twilio signs: it is routed even when
      // it arrives before this send returns, and whatever number the agency has by then.
      if (config.statusCallbackUrl) form.set("StatusCallback", `${config.statusCallbackUrl}?${new URLSearchParams({ agency: ref.agencyId, message: ref.messageId })}`);
      const answered = await call(`${baseUrl}${messagesPath}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      if (!("response" in answered)) return answered;
      const { response, answer } = answered;
      if (!response.ok) return failure(response, answer);
      return { outcome: "accepted", ...providerMessage(answer) };
    },

    async findSent({ to, from, body }: OutboundSms, since: string): Promise<LookupOutcome> {
      // Without a sender no send ever reached Twilio.
      if (!from) return { outcome: "checked", found: [] };
      const earliest = Date.parse(since) - CLOCK_SKEW_MS;
      const found: { providerMessageId: string; status: DeliveryStatus; error: string | null }[] = [];
      let next: string | null = `${messagesPath}?${new URLSearchParams({ To: to, From: from, PageSize: String(LOOKUP_PAGE_SIZE) })}`;
      for (let page = 0; next !== null && page < LOOKUP_MAX_PAGES; page++) {
        const answered = await call(`${baseUrl}${next}`, { method: "GET" });
        if (!("response" in answered)) return { ...answered, maybeSent: false };
        const { response, answer } = answered;
        // Whatever the refusal, we could not look: not a reason to send, so try again later.
        if (!response.ok) return { outcome: "retry", error: twilioError(answer.code, answer.message) ?? `Twilio answered ${response.status}`, retryAfterSeconds: retryAfterSeconds(response.headers.get("Retry-After")), maybeSent: false };
        const messages = Array.isArray(answer.messages) ? (answer.messages as TwilioMessage[]) : [];
        const created = (m: TwilioMessage) => Date.parse(text(m.date_created) ?? "");
        for (const m of messages) {
          const outbound = text(m.direction)?.startsWith("outbound") ?? true;
          const recent = !(created(m) < earliest);
          const sid = text(m.sid);
          if (sid && outbound && recent && m.body === body) found.push({ ...providerMessage(m), providerMessageId: sid });
        }
        // Newest first: a page wholly older than the window means the rest are older still.
        if (messages.length === 0 || messages.every((m) => created(m) < earliest)) break;
        next = text(answer.next_page_uri);
      }
      return { outcome: "checked", found };
    },
  };
}

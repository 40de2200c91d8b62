import type { SmsProvider, SmsSendResult } from "@/domain/messages/sms-provider";

/** The path Twilio reports delivery to (src/integrations/twilio/twilio.routes.ts). */
export const TWILIO_STATUS_PATH = "/providers/twilio/status";

/**
 * Twilio's Messages API over fetch (https://www.twilio.com/docs/messaging/api/message-resource):
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From`, `Body` and
 * `StatusCallback`, HTTP Basic auth with the account SID and auth token. A 201 answers the
 * message with its `sid` and `status` (`queued` or `accepted`); later states arrive at the
 * StatusCallback. A 4xx answers `{ code, message, more_info, status }`: the message is
 * refused for good (an invalid or unreachable number, an unverified sender), and Twilio's code
 * is kept in the message's `delivery_error`.
 */
export const DEFAULT_TWILIO_BASE_URL = "https://api.twilio.com";
const REQUEST_TIMEOUT_MS = 10_000;

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  baseUrl?: string;
  /** Where Twilio reports each message's delivery: `<PUBLIC_BASE_URL>/providers/twilio/status`. */
  statusCallbackUrl: string | null;
  fetch?: typeof fetch;
}

/** Twilio's message states, in the API's four. */
const STATUS: Record<string, SmsSendResult["status"]> = {
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

export const twilioStatus = (status: string | null | undefined): SmsSendResult["status"] | undefined => (status ? STATUS[status] : undefined);

/** `30003 Unreachable destination handset`: Twilio's code first, as partners search for it. */
export const twilioError = (code: unknown, message: unknown) => {
  const text = [code, message].filter((part) => part !== null && part !== undefined && String(part).length > 0).join(" ");
  return text.length > 0 ? text : null;
};

export function createTwilioSmsProvider(config: TwilioConfig): SmsProvider {
  const baseUrl = (config.baseUrl || DEFAULT_TWILIO_BASE_URL).replace(/\/+$/, "");
  const doFetch = config.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const auth = `Basic ${btoa(`${config.accountSid}:${config.authToken}`)}`;
  return {
    name: "twilio",
    async send({ to, from, body, ref }) {
      if (!from) return { status: "failed", providerMessageId: null, error: "The agency has no SMS sender number" };
      const form = new URLSearchParams({ To: to, From: from, Body: body });
      // The report names its message and agency in the URL Twilio signs: it is routed even when
      // it arrives before this send returns, and whatever number the agency has by then.
      if (config.statusCallbackUrl) form.set("StatusCallback", `${config.statusCallbackUrl}?${new URLSearchParams({ agency: ref.agencyId, message: ref.messageId })}`);
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`, {
          method: "POST",
          headers: { Authorization: auth, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
          body: form.toString(),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        return { status: "failed", providerMessageId: null, error: `Twilio could not be reached: ${(error as Error).message}` };
      }
      let answer: { sid?: unknown; status?: unknown; code?: unknown; message?: unknown; error_code?: unknown; error_message?: unknown } = {};
      try {
        answer = (await response.json()) as typeof answer;
      } catch {
        // Kept empty: the status code still tells what happened.
      }
      if (!response.ok) {
        return { status: "failed", providerMessageId: null, error: twilioError(answer.code, answer.message) ?? `Twilio answered ${response.status}` };
      }
      const sid = typeof answer.sid === "string" ? answer.sid : null;
      const status = twilioStatus(typeof answer.status === "string" ? answer.status : null) ?? "queued";
      return status === "failed"
        ? { status, providerMessageId: sid, error: twilioError(answer.error_code, answer.error_message) ?? "failed" }
        : { status, providerMessageId: sid };
    },
  };
}

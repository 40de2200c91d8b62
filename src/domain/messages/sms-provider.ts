import type { Env } from "@/env";
import { createTwilioSmsProvider } from "@/integrations/twilio/sms-client";

/** What a provider reports for one outbound SMS. */
export type DeliveryStatus = "queued" | "sent" | "delivered" | "failed";

export interface SmsSendResult {
  status: DeliveryStatus;
  /** The provider's id of the message (for delivery receipts and support). */
  providerMessageId: string | null;
  /** Why it failed, in the provider's words (with its error code); only with `failed`. */
  error?: string | null;
}

/** Sends one SMS. Implementations must not throw for a refused message: they answer `failed`. */
export interface SmsProvider {
  readonly name: string;
  /**
   * `from` is the agency's SMS sender number, null when it has none; `ref` names the stored
   * message, for the provider's later reports about it.
   */
  send(message: { to: string; from: string | null; body: string; ref: { agencyId: string; messageId: string } }): Promise<SmsSendResult>;
}

/**
 * Numbers the simulated provider refuses, so failures can be exercised without a carrier.
 * Borrowed from Twilio's test credentials ("magic numbers"), where +15005550009 is a number
 * that cannot receive SMS. See https://www.twilio.com/docs/iam/test-credentials.
 */
export const SIMULATED_UNDELIVERABLE = new Set(["+15005550009"]);

/**
 * The default provider: sends nothing and records the message as delivered at once, with a
 * `sim_` id. Used locally, in tests, and wherever no real provider is configured.
 */
export const simulatedSmsProvider: SmsProvider = {
  name: "simulated",
  async send({ to }) {
    const providerMessageId = `sim_${crypto.randomUUID()}`;
    if (SIMULATED_UNDELIVERABLE.has(to)) return { status: "failed", providerMessageId, error: "30003 Unreachable destination handset" };
    return { status: "delivered", providerMessageId };
  },
};

/** The path Twilio reports delivery to (src/providers/twilio/twilio.routes.ts). */
export const TWILIO_STATUS_PATH = "/providers/twilio/status";

/**
 * The provider for this deployment: Twilio's Messages API when `SMS_PROVIDER` is `twilio`
 * (with its account SID and auth token), the simulator otherwise.
 */
export function smsProviderFor(env: Env): SmsProvider {
  if (env.SMS_PROVIDER !== "twilio") return simulatedSmsProvider;
  if (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN) throw new Error("SMS_PROVIDER is twilio but TWILIO_ACCOUNT_SID or TWILIO_AUTH_TOKEN is not set");
  return createTwilioSmsProvider({
    accountSid: env.TWILIO_ACCOUNT_SID,
    authToken: env.TWILIO_AUTH_TOKEN,
    baseUrl: env.TWILIO_BASE_URL,
    statusCallbackUrl: env.PUBLIC_BASE_URL ? `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${TWILIO_STATUS_PATH}` : null,
  });
}

import type { Env } from "@/env";

/** What a provider reports for one outbound SMS. */
export type DeliveryStatus = "queued" | "sent" | "delivered" | "failed";

export interface SmsSendResult {
  status: Exclude<DeliveryStatus, "queued">;
  /** The provider's id of the message (for delivery receipts and support). */
  providerMessageId: string | null;
  /** Why it failed, in the provider's words; only with `failed`. */
  error?: string;
}

/** Sends one SMS. Implementations must not throw for a refused message: they answer `failed`. */
export interface SmsProvider {
  readonly name: string;
  send(message: { to: string; body: string }): Promise<SmsSendResult>;
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
    if (SIMULATED_UNDELIVERABLE.has(to)) return { status: "failed", providerMessageId, error: "unreachable-destination" };
    return { status: "delivered", providerMessageId };
  },
};

/**
 * The provider for this deployment. Only the simulated one exists so far; a real adapter
 * (e.g. Twilio's Messages API over fetch) plugs in here, chosen by its secrets in `env`.
 */
export function smsProviderFor(env: Env): SmsProvider {
  void env;
  return simulatedSmsProvider;
}

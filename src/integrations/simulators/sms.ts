import type { SmsProvider } from "@/domain/messages/sms-provider";

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

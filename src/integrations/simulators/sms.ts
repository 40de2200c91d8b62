import type { ProviderMessage, SmsProvider } from "@/domain/messages/sms-provider";

/**
 * Numbers the simulated provider refuses, so failures can be exercised without a carrier.
 * Borrowed from Twilio's test credentials ("magic numbers"), where +15005550009 is a number
 * that cannot receive SMS. See https://www.twilio.com/docs/iam/test-credentials.
 */
export const SIMULATED_UNDELIVERABLE = new Set(["+15005550009"]);

/**
 * What this isolate's simulator sent, by stored message id, so its look-up finds an attempt whose
 * consumer died before recording the answer, as Twilio's list would. The simulator's answers
 * are never lost otherwise, so this is all a look-up can find. Only the latest are kept: a
 * look-up comes within the hour of its send.
 */
const sent = new Map<string, ProviderMessage & { providerMessageId: string }>();
const REMEMBERED = 10_000;

/**
 * The default provider: sends nothing, and reports a message delivered as soon as it is taken,
 * with a `sim_` id (the magic undeliverable number is refused for good). It is reached through
 * the same queue, claims and states as Twilio (`queued` at 201, then `delivered` or `failed`).
 * Used locally, in tests, and wherever no real provider is configured.
 */
export const simulatedSmsProvider: SmsProvider = {
  name: "simulated",
  async send({ to, ref }) {
    if (SIMULATED_UNDELIVERABLE.has(to)) return { outcome: "refused", error: "30003 Unreachable destination handset" };
    const message = { providerMessageId: `sim_${crypto.randomUUID()}`, status: "delivered" as const, error: null };
    sent.set(ref.messageId, message);
    if (sent.size > REMEMBERED) sent.delete(sent.keys().next().value!);
    return { outcome: "accepted", ...message };
  },
  async findSent({ ref }) {
    const message = sent.get(ref.messageId);
    return { outcome: "checked", found: message ? [message] : [] };
  },
};

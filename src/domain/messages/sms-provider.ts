import type { Env } from "@/env";

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
 * The provider for a deployment is chosen by src/integrations/sms-providers.ts, which the Worker
 * entry (src/app.ts) hands to the domain here: the domain names the port, the integrations
 * fill it, and neither imports the other's floor (docs/architecture.md).
 */
let choose: ((env: Env) => SmsProvider) | undefined;

export function useSmsProviders(chooser: (env: Env) => SmsProvider) {
  choose = chooser;
}

/** The deployment's SMS provider. */
export function smsProviderFor(env: Env): SmsProvider {
  if (!choose) throw new Error("No SMS provider is wired: src/app.ts calls useSmsProviders at startup");
  return choose(env);
}

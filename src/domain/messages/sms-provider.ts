/** What a provider reports for one outbound SMS. */
export type DeliveryStatus = "queued" | "sent" | "delivered" | "failed";

/** One SMS to send: `from` is the agency's sender number (null when it has none); `ref` names the stored message. */
export interface OutboundSms {
  to: string;
  from: string | null;
  body: string;
  ref: { agencyId: string; messageId: string };
}

/** A message as the provider holds it. */
export interface ProviderMessage {
  /** The provider's id of the message (for delivery reports and support). */
  providerMessageId: string | null;
  /** Where the provider has it; `queued` means accepted and not yet handed to a carrier. */
  status: DeliveryStatus;
  /** Why it failed, in the provider's words (with its error code); only with `failed`. */
  error: string | null;
}

/** A failure worth trying again later: the provider was busy, broken or out of reach. */
export interface RetryableFailure {
  outcome: "retry";
  error: string;
  /** What the provider asked us to wait (a 429's Retry-After), in seconds; null when it said nothing. */
  retryAfterSeconds: number | null;
  /**
   * The request may have reached the provider and created the message although no answer came
   * back (a timeout, a dropped connection, a 5xx): look it up before sending it again.
   */
  maybeSent: boolean;
}

/** What one attempt to send came to. */
export type SendOutcome =
  /** The provider took the message. */
  | ({ outcome: "accepted" } & ProviderMessage)
  /** The provider refused it for good (an invalid number, an unverified sender): sending again would not help. */
  | { outcome: "refused"; error: string }
  | RetryableFailure;

/** What a look-up came to: the provider's messages that an earlier attempt of this one may have created (newest first), or a failure to ask. */
export type LookupOutcome = { outcome: "checked"; found: (ProviderMessage & { providerMessageId: string })[] } | (RetryableFailure & { maybeSent: false });

/**
 * Sends SMS. Filled by src/integrations/ (Twilio, the simulator; src/integrations/sms-providers.ts
 * chooses one per deployment) and handed to each attempt by the `sms-sends` consumer, so the
 * domain never imports a vendor (docs/architecture.md). Neither method throws for what the
 * provider answers (a refusal, a 5xx, a timeout): each answers an outcome, and the domain decides
 * what to retry (src/domain/messages/sms-attempt.ts).
 */
export interface SmsProvider {
  readonly name: string;
  send(message: OutboundSms): Promise<SendOutcome>;
  /**
   * The messages the provider holds that an earlier `send` of `message` may have created without
   * its answer reaching us: to `to`, from `from`, with this body, created at or after `since`
   * (an ISO instant). Asked before sending again after a lost answer, so a person never gets one
   * text twice.
   */
  findSent(message: OutboundSms, since: string): Promise<LookupOutcome>;
}

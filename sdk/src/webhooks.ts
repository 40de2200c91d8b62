import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { components } from "./generated/api.js";

/** An event as a webhook delivers it: the same object as `GET /events/{event_uuid}` returns. */
export type WebhookEvent = components["schemas"]["Event"];

export { WebhookVerificationError };

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: HeaderSource): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return plain;
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's secret (`whsec_...`) and returns the event.
 * Pass the body exactly as received (the raw text, before any JSON parsing). Throws
 * WebhookVerificationError for a wrong signature, a changed body, or a timestamp more than
 * five minutes away; during a secret rotation either secret verifies.
 */
export function verifyWebhook(body: string, headers: HeaderSource, secret: string): WebhookEvent {
  return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
}

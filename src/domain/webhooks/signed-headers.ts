import type { webhookEndpoints } from "@/db/schema";
import { isoAt } from "@/lib/time";
import { signatureHeader } from "@/lib/webhooks/signature";

const USER_AGENT = "PartnerAPI-Webhooks/2.0 (+https://www.standardwebhooks.com)";

/**
 * The headers of a delivery's POST of `body` (its event, `eventId`) at `now`: Standard Webhooks'
 * id, timestamp and signature, signed with the endpoint's secret and, while it has not expired,
 * the one it replaced.
 */
export async function signedHeaders(
  endpoint: Pick<typeof webhookEndpoints.$inferSelect, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  eventId: string,
  body: string,
  now: number,
): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > isoAt(now)) secrets.push(endpoint.previousSecret);
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureHeader(secrets, eventId, timestamp, body),
  };
}

import { webhookEndpointStatuses } from "@/db/schema";
import { eventTypes, type EventType } from "@/domain/events/events";
import { MAX_WEBHOOK_URL_LENGTH } from "@/lib/webhook-url";

export const MAX_ENDPOINTS_PER_AGENCY = 16;
export const MAX_DESCRIPTION_LENGTH = 500;

/** Types an endpoint may subscribe to: every type but `ping`, which goes only to the endpoint being tested. */
export type SubscribableType = Exclude<EventType, "ping">;
export const subscribableTypes = eventTypes.filter((t): t is SubscribableType => t !== "ping");

export const webhookMessages = {
  notFound: "Webhook endpoint not found",
  tooMany: `An agency can have at most ${MAX_ENDPOINTS_PER_AGENCY} webhook endpoints; delete one first`,
  events: 'events must be a list of event types (see the Events tag) or ["*"] for all of them',
  url: `url must be a string of at most ${MAX_WEBHOOK_URL_LENGTH} characters`,
  description: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
  status: `status must be one of: ${webhookEndpointStatuses.join(", ")}`,
} as const;

/** A new endpoint, as the route's schema (`CreateWebhookEndpointRequest`) parsed it: `events` is a list of types or `["*"]`. */
export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
}

/** A change of an endpoint (`UpdateWebhookEndpointRequest`). */
export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: (typeof webhookEndpointStatuses)[number];
}

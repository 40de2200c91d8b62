import { z } from "@hono/zod-openapi";
import { webhookEndpointStatuses } from "@/db/schema";
import { boundedInt, instantString, uuidString } from "@/lib/bounded";
import { eventTypes } from "@/domain/events/events";
import { uuidParam } from "@/lib/ids";
import { documentedNullable } from "@/lib/openapi";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { MAX_WEBHOOK_URL_LENGTH } from "@/lib/webhook-url";
import { SECRET_PREFIX } from "@/lib/webhooks/signature";
import { MAX_ATTEMPTS } from "@/lib/webhooks/webhook-message";
import { MAX_DESCRIPTION_LENGTH, subscribableTypes, webhookMessages } from "@/domain/webhook-endpoints/webhook-endpoints.rules";


/** `whsec_` and the base64 of 32 random bytes (`newWebhookSecret`): 43 characters and one `=` of padding. */
const SECRET_PATTERN = new RegExp(`^${SECRET_PREFIX}[A-Za-z0-9+/]{43}=$`);
const SECRET_LENGTH = SECRET_PREFIX.length + 44;
const secretString = () => z.string().length(SECRET_LENGTH).regex(SECRET_PATTERN);
/**
 * An attempt's `error`: deliver.ts writes a short fixed text (`HTTP 500`, `no response within
 * 10 s`, `redirect 301 not followed`) or a network error cut to this length.
 */
const MAX_ATTEMPT_ERROR_LENGTH = 300;
/** HTTP status codes are three digits (RFC 9110, section 15). */
const MIN_STATUS_CODE = 100;
const MAX_STATUS_CODE = 999;
/**
 * An attempt is cut off after DELIVERY_TIMEOUT_MS, but its duration is measured around the
 * fetch, so the hard bound is the queue consumer's own: 15 minutes of wall time per invocation
 * (https://developers.cloudflare.com/queues/platform/limits/).
 */
const MAX_ATTEMPT_DURATION_MS = 15 * 60 * 1000;



const endpointExampleUuid = "e1d2c3b4-a5f6-4e7d-8c9b-0a1f2e3d4c5b";
const endpointExample = {
  webhook_endpoint_uuid: endpointExampleUuid,
  url: "https://crm.example.com/hooks/partner-api",
  events: ["contact.created", "appointment.booked"],
  status: "enabled" as const,
  disabled_reason: null,
  description: "CRM sync",
  created_at: "2026-11-21T14:05:00.000Z",
  updated_at: "2026-11-21T14:05:00.000Z",
};
const secretExample = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwqP3xV7nB0cE=";

export const WebhookEndpoint = z
  .object({
    webhook_endpoint_uuid: uuidString(),
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH).openapi({ description: "Where events are POSTed." }),
    events: z
      .array(z.enum(["*", ...subscribableTypes]))
      .min(1)
      .max(subscribableTypes.length)
      .openapi({ description: 'The event types delivered here, or `["*"]` for all.' }),
    status: z.enum(webhookEndpointStatuses).openapi({ description: "Only `enabled` endpoints receive events." }),
    disabled_reason: z
      .enum(["failing"])
      .nullable()
      .openapi({ description: "`failing` when we disabled the endpoint after 5 days in which every attempt failed; null otherwise." }),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    created_at: instantString(),
    updated_at: instantString(),
  })
  .openapi("WebhookEndpoint", { example: endpointExample });

export const WebhookEndpointResponse = z
  .object({ success: z.literal(true), webhook_endpoint: WebhookEndpoint })
  .openapi("WebhookEndpointResponse", { example: { success: true, webhook_endpoint: endpointExample } });

export const WebhookEndpointCreatedResponse = z
  .object({
    success: z.literal(true),
    webhook_endpoint: WebhookEndpoint,
    secret: secretString().openapi({ description: "The signing secret, `whsec_...`. Shown only here and on rotation: store it." }),
  })
  .openapi("WebhookEndpointCreatedResponse", { example: { success: true, webhook_endpoint: endpointExample, secret: secretExample } });

export const WebhookEndpointListResponse = z
  .object({ success: z.literal(true), webhook_endpoints: z.array(WebhookEndpoint).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("WebhookEndpointListResponse", {
    example: { success: true, webhook_endpoints: [endpointExample], pagination: singlePageExample },
  });

export const WebhookSecretResponse = z
  .object({
    success: z.literal(true),
    secret: secretString().openapi({ description: "The new signing secret. The previous one keeps signing beside it for 24 hours." }),
    previous_secret_expires_at: instantString().openapi({ description: "When the previous secret stops signing (UTC)." }),
  })
  .openapi("WebhookSecretResponse", {
    example: { success: true, secret: secretExample, previous_secret_expires_at: "2026-11-22T14:05:00.000Z" },
  });

export const WebhookTestResponse = z
  .object({ success: z.literal(true), event_uuid: uuidString().openapi({ description: "The `ping` event sent; its attempts appear in the deliveries log." }) })
  .openapi("WebhookTestResponse", { example: { success: true, event_uuid: "0b7e4c1a-9d2f-4e6b-8a3c-5f1e2d4c6b8a" } });

const attemptExample = {
  event_uuid: "0b7e4c1a-9d2f-4e6b-8a3c-5f1e2d4c6b8a",
  type: "contact.created",
  attempt: 2,
  status_code: 200,
  error: null,
  duration_ms: 183,
  delivered: true,
  attempted_at: "2026-11-21T14:05:05.120Z",
  next_attempt_at: null,
};

export const WebhookAttempt = z
  .object({
    event_uuid: uuidString(),
    type: z.enum(eventTypes),
    attempt: boundedInt(1, MAX_ATTEMPTS).openapi({ description: "1 for the first attempt of this delivery, 2 for the first retry, ..." }),
    status_code: boundedInt(MIN_STATUS_CODE, MAX_STATUS_CODE)
      .nullable()
      .openapi({ description: "Your endpoint's HTTP status; null when no response arrived." }),
    error: z
      .string()
      .max(MAX_ATTEMPT_ERROR_LENGTH)
      .nullable()
      .openapi({ description: "Why the attempt failed (a timeout, a network error, a non-2xx status, a redirect); null when delivered." }),
    duration_ms: boundedInt(0, MAX_ATTEMPT_DURATION_MS),
    delivered: z.boolean().openapi({ description: "True when your endpoint answered 2xx within 10 seconds." }),
    attempted_at: instantString(),
    next_attempt_at: instantString()
      .nullable()
      .openapi({ description: "When the next retry is due; null when delivered or given up." }),
  })
  .openapi("WebhookAttempt", { example: attemptExample });

export const WebhookAttemptListResponse = z
  .object({ success: z.literal(true), deliveries: z.array(WebhookAttempt).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("WebhookAttemptListResponse", { example: { success: true, deliveries: [attemptExample], pagination: singlePageExample } });

export const EndpointParams = z.object({ webhook_endpoint_uuid: uuidParam("webhook_endpoint_uuid") });
export const ListEndpointsQuery = paginationQuery;
export const ListAttemptsQuery = paginationQuery;

/** A missing field keeps the shared "<field> is required"; anything else gets the field's own message. */
const unlessMissing = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? undefined : message);

const urlField = z
  .string({ error: unlessMissing(webhookMessages.url) })
  .max(MAX_WEBHOOK_URL_LENGTH, webhookMessages.url)
  .openapi({
    description:
      "A public `https` URL: no credentials, not `localhost`, not an IP address of a private, loopback, link-local or " +
      "reserved range, not a name under `.local` or `.internal`. Redirects are not followed.",
    example: "https://crm.example.com/hooks/partner-api",
  });

const subscribable = new Set<string>(["*", ...subscribableTypes]);
const eventsField = z
  .array(z.string({ error: webhookMessages.events }), { error: unlessMissing(webhookMessages.events) })
  .min(1, webhookMessages.events)
  .max(subscribableTypes.length, webhookMessages.events)
  .refine(
    (list) => list.every((t) => subscribable.has(t)) && new Set(list).size === list.length && (!list.includes("*") || list.length === 1),
    webhookMessages.events,
  )
  // The refinement hides the bounds from the document: state them here.
  .openapi({
    description: 'Event types to deliver, or `["*"]` for every type.',
    type: "array",
    minItems: 1,
    maxItems: subscribableTypes.length,
    items: { type: "string", enum: ["*", ...subscribableTypes] },
    example: ["contact.created", "appointment.booked"],
  });

const descriptionField = z
  .string({ error: webhookMessages.description })
  .trim()
  .max(MAX_DESCRIPTION_LENGTH, webhookMessages.description)
  .openapi({ description: "Your note, e.g. what the endpoint is for.", example: "CRM sync" });

export const CreateEndpointBody = z
  .strictObject({ url: urlField, events: eventsField, description: descriptionField.optional() })
  .openapi("CreateWebhookEndpointRequest", { example: { url: endpointExample.url, events: endpointExample.events, description: "CRM sync" } });

export const UpdateEndpointBody = z
  .strictObject({
    url: urlField.optional(),
    events: eventsField.optional(),
    description: descriptionField.nullable().optional().openapi(documentedNullable),
    status: z
      .enum(webhookEndpointStatuses, { error: webhookMessages.status })
      .optional()
      .openapi({ description: "`disabled` stops deliveries; `enabled` resumes them (and clears `disabled_reason`).", example: "enabled" }),
  })
  .openapi("UpdateWebhookEndpointRequest", { example: { events: ["*"], status: "enabled" } });

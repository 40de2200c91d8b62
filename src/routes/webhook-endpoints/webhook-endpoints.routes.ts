import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { webhookUrlMessages } from "@/lib/webhook-url";
import { RETRY_SCHEDULE_SECONDS } from "@/lib/webhooks/webhook-message";
import { CreateEndpointBody, EndpointParams, ListAttemptsQuery, ListEndpointsQuery, UpdateEndpointBody, WebhookAttemptListResponse, WebhookEndpointCreatedResponse, WebhookEndpointListResponse, WebhookEndpointResponse, WebhookSecretResponse, WebhookTestResponse } from "./webhook-endpoints.schemas";
import { webhookMessages } from "@/domain/webhook-endpoints/webhook-endpoints.rules";

const TAGS: ["Webhooks"] = ["Webhooks"];
const notFound = { 404: { description: "No webhook endpoint with this uuid in your agency.", error: webhookMessages.notFound } };
const schedule = RETRY_SCHEDULE_SECONDS.map((s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`)).join(", ");

/** How deliveries work, for the create description. */
const deliveryContract =
  "Each event is POSTed as JSON (the `Event` body of `GET /events/{event_uuid}`) with the Standard Webhooks headers " +
  "(standardwebhooks.com): `webhook-id` (the `event_uuid`, the same on every retry: deduplicate on it), " +
  "`webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of " +
  "`<webhook-id>.<webhook-timestamp>.<body>` keyed by the bytes of your secret after `whsec_`; during the 24 hours " +
  "after a rotation there are two, space-separated, one per secret). Any Standard Webhooks library verifies them. " +
  `A 2xx within 10 seconds is delivered; anything else, a redirect included (never followed), is retried after ${schedule}, ` +
  "then given up. An endpoint whose every attempt failed for 5 days is disabled (`disabled_reason: failing`).";

export const listWebhookEndpoints = partnerRoute({
  method: "get",
  path: "/webhook-endpoints",
  operationId: "listWebhookEndpoints",
  tags: TAGS,
  summary: "List webhook endpoints",
  description: "Lists the agency's webhook endpoints, newest first (at most 16). Secrets are never returned.",
  scopes: ["webhooks"],
  request: { query: ListEndpointsQuery },
  responses: { 200: jsonContent(WebhookEndpointListResponse, "One page of endpoints.") },
});

export const createWebhookEndpoint = partnerRoute({
  method: "post",
  path: "/webhook-endpoints",
  operationId: "createWebhookEndpoint",
  tags: TAGS,
  summary: "Create webhook endpoint",
  description:
    "Registers a URL to receive the agency's events of the listed types (or `[\"*\"]`). Answers 201 with the endpoint " +
    "and its signing `secret` (`whsec_...`), shown only here and on rotation. The URL must be public `https`: URLs " +
    "with credentials, `localhost`, IP addresses of private, loopback, link-local or reserved ranges, and names under " +
    "`.local` or `.internal` are 400 naming the rule. At most 16 endpoints per agency (409). " +
    deliveryContract,
  scopes: ["webhooks"],
  request: { body: jsonBody(CreateEndpointBody) },
  errorExamples: {
    400: { error: webhookUrlMessages.https },
    409: { description: "The agency already has 16 endpoints.", error: webhookMessages.tooMany },
  },
  responses: { 201: jsonContent(WebhookEndpointCreatedResponse, "The endpoint, with its secret (shown once).") },
});

export const getWebhookEndpoint = partnerRoute({
  method: "get",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}",
  operationId: "getWebhookEndpoint",
  tags: TAGS,
  summary: "Get webhook endpoint",
  description: "Returns one endpoint, without its secret.",
  scopes: ["webhooks"],
  request: { params: EndpointParams },
  errorExamples: notFound,
  responses: { 200: jsonContent(WebhookEndpointResponse, "The endpoint.") },
});

export const updateWebhookEndpoint = partnerRoute({
  method: "patch",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}",
  operationId: "updateWebhookEndpoint",
  tags: TAGS,
  summary: "Update webhook endpoint",
  description:
    "Changes any of `url` (same rules as on create), `events`, `description` (`null` clears it) and `status`: " +
    "`disabled` stops deliveries (pending retries are dropped when they fall due), `enabled` resumes them and clears " +
    "`disabled_reason`. Answers with the endpoint.",
  scopes: ["webhooks"],
  request: { params: EndpointParams, body: jsonBody(UpdateEndpointBody) },
  errorExamples: { ...notFound, 400: { error: webhookUrlMessages.privateIp } },
  responses: { 200: jsonContent(WebhookEndpointResponse, "The endpoint after the change.") },
});

export const deleteWebhookEndpoint = partnerRoute({
  method: "delete",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}",
  operationId: "deleteWebhookEndpoint",
  tags: TAGS,
  summary: "Delete webhook endpoint",
  description: "Deletes the endpoint, its pending deliveries and its delivery log. Answers with the endpoint as it was.",
  scopes: ["webhooks"],
  request: { params: EndpointParams },
  errorExamples: notFound,
  responses: { 200: jsonContent(WebhookEndpointResponse, "The deleted endpoint.") },
});

export const rotateWebhookSecret = partnerRoute({
  method: "post",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}/rotate-secret",
  operationId: "rotateWebhookSecret",
  tags: TAGS,
  summary: "Rotate webhook signing secret",
  description:
    "Issues a new signing secret, shown only in this answer. The previous secret keeps signing beside the new one for " +
    "24 hours (deliveries then carry two signatures), so you can switch without missing a delivery. Rotating again " +
    "within the 24 hours ends the older secret at once.",
  scopes: ["webhooks"],
  request: { params: EndpointParams },
  errorExamples: notFound,
  responses: { 200: jsonContent(WebhookSecretResponse, "The new secret.") },
});

export const testWebhookEndpoint = partnerRoute({
  method: "post",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}/test",
  operationId: "testWebhookEndpoint",
  tags: TAGS,
  summary: "Send a test event",
  description:
    "Sends a `ping` event to this endpoint at once (whatever its `events` and `status`), signed like every delivery " +
    "and retried like one. Answers 202 with the `event_uuid`; follow it in `GET /webhook-endpoints/{webhook_endpoint_uuid}/deliveries`.",
  scopes: ["webhooks"],
  request: { params: EndpointParams },
  errorExamples: notFound,
  responses: { 202: jsonContent(WebhookTestResponse, "The ping is on its way.") },
});

export const listWebhookDeliveries = partnerRoute({
  method: "get",
  path: "/webhook-endpoints/{webhook_endpoint_uuid}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: TAGS,
  summary: "List delivery attempts",
  description:
    "Every delivery attempt to this endpoint, newest first: the event, the attempt number, your endpoint's status " +
    "code (or the error), how long it took, whether it was delivered, and when the next retry is due. Paginated.",
  scopes: ["webhooks"],
  request: { params: EndpointParams, query: ListAttemptsQuery },
  errorExamples: notFound,
  responses: { 200: jsonContent(WebhookAttemptListResponse, "One page of attempts.") },
});

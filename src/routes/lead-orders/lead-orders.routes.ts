import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import {
  LeadOrderListResponse,
  LeadOrderParams,
  LeadOrderResponse,
  ListLeadOrdersQuery,
  PauseLeadOrderBody,
  UpdateLeadOrderBody,
  leadOrderMessages,
} from "./lead-orders.schemas";

const TAGS: ["Lead orders"] = ["Lead orders"];
const notFoundExample = { 404: { description: "No lead order with this uuid in your agency.", error: leadOrderMessages.notFound } };
const canceledExample = { 409: { description: "The order is canceled; a canceled order cannot be changed.", error: leadOrderMessages.canceled } };

export const listLeadOrders = partnerRoute({
  method: "get",
  path: "/lead-orders",
  operationId: "listLeadOrders",
  tags: TAGS,
  summary: "List lead orders",
  description:
    "Lists the agency's lead orders, newest first (by `created_at`), canceled ones included. `status` narrows the " +
    "list to `active`, `paused` or `canceled` orders. Paginated with `page` and `limit`; `pagination.total` counts " +
    "every match. Orders are bought in the agency dashboard; this API reads and steers them.",
  scopes: ["lead-orders"],
  request: { query: ListLeadOrdersQuery },
  errorExamples: { 400: { error: leadOrderMessages.status } },
  responses: { 200: jsonContent(LeadOrderListResponse, "One page of lead orders.") },
});

export const getLeadOrder = partnerRoute({
  method: "get",
  path: "/lead-orders/{order_uuid}",
  operationId: "getLeadOrder",
  tags: TAGS,
  summary: "Get lead order",
  description: "Returns one lead order of the agency, whatever its status.",
  scopes: ["lead-orders"],
  request: { params: LeadOrderParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(LeadOrderResponse, "The lead order.") },
});

export const updateLeadOrder = partnerRoute({
  method: "patch",
  path: "/lead-orders/{order_uuid}",
  operationId: "updateLeadOrder",
  tags: TAGS,
  summary: "Patch lead order",
  description:
    "Changes any subset of `name`, `daily_max` (a whole number from 1 to 10000) and `states` (two-letter codes of the " +
    "50 US states and DC, at least one, no repeats; the list is replaced, not merged). Fields not sent are kept; " +
    "unknown fields are 400. An active or paused order can be patched and keeps its status; a canceled order is 409. " +
    "An empty body answers with the order unchanged.",
  scopes: ["lead-orders"],
  request: { params: LeadOrderParams, body: jsonBody(UpdateLeadOrderBody) },
  errors: [409],
  errorExamples: { 400: { error: leadOrderMessages.unknownStates(["PR"]) }, ...notFoundExample, ...canceledExample },
  responses: { 200: jsonContent(LeadOrderResponse, "The updated lead order.") },
});

export const pauseLeadOrder = partnerRoute({
  method: "post",
  path: "/lead-orders/{order_uuid}/pause",
  operationId: "pauseLeadOrder",
  tags: TAGS,
  summary: "Pause or resume lead order",
  description:
    "`{ \"paused\": true }` pauses an active order (no leads are delivered while paused); `{ \"paused\": false }` " +
    "resumes a paused one. Idempotent: pausing a paused order or resuming an active one answers 200 with the order " +
    "unchanged (`updated_at` included). A canceled order is 409.",
  scopes: ["lead-orders"],
  request: { params: LeadOrderParams, body: jsonBody(PauseLeadOrderBody) },
  errorExamples: {
    400: { error: "paused is required" },
    ...notFoundExample,
    409: {
      description: "The order is canceled (a canceled order cannot be changed).",
      error: leadOrderMessages.canceled,
    },
  },
  responses: { 200: jsonContent(LeadOrderResponse, "The lead order in its new status.") },
});

export const cancelLeadOrder = partnerRoute({
  method: "post",
  path: "/lead-orders/{order_uuid}/cancel",
  operationId: "cancelLeadOrder",
  tags: TAGS,
  summary: "Cancel lead order",
  description:
    "Cancels an active or paused order for good: `status` becomes `canceled` and `canceled_at` is set. Afterwards " +
    "the order can still be read but not patched, paused, resumed or canceled again (409). No request body.",
  scopes: ["lead-orders"],
  request: { params: LeadOrderParams },
  errorExamples: {
    ...notFoundExample,
    409: {
      description: "The order is already canceled.",
      error: leadOrderMessages.alreadyCanceled,
    },
  },
  responses: { 200: jsonContent(LeadOrderResponse, "The canceled lead order.") },
});

import { createRouter } from "@/lib/create-router";
import * as handlers from "./webhook-endpoints.handlers";
import * as routes from "./webhook-endpoints.routes";

export const webhookEndpointsRouter = createRouter()
  .openapi(routes.listWebhookEndpoints, handlers.listWebhookEndpoints)
  .openapi(routes.createWebhookEndpoint, handlers.createWebhookEndpoint)
  .openapi(routes.getWebhookEndpoint, handlers.getWebhookEndpoint)
  .openapi(routes.updateWebhookEndpoint, handlers.updateWebhookEndpoint)
  .openapi(routes.deleteWebhookEndpoint, handlers.deleteWebhookEndpoint)
  .openapi(routes.rotateWebhookSecret, handlers.rotateWebhookSecret)
  .openapi(routes.testWebhookEndpoint, handlers.testWebhookEndpoint)
  .openapi(routes.listWebhookDeliveries, handlers.listWebhookDeliveries);

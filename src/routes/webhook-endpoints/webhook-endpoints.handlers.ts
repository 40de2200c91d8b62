import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { actorOf } from "@/domain/audit/audit-log";
import type { AppBindings } from "@/lib/context";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as ops from "@/domain/webhook-endpoints/webhook-endpoint-operations";
import * as repo from "@/domain/webhook-endpoints/webhook-endpoints.repository";
import type * as routes from "./webhook-endpoints.routes";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const endpointBody = (row: repo.WebhookEndpointRow) => ({ success: true as const, webhook_endpoint: repo.toPublicEndpoint(row) });

/** Changes through the Partner API are recorded as made by the calling key or connected app. */
const asCaller = (c: Context<AppBindings>): ops.EndpointActionContext => ({ db: c.var.db, env: c.env, actor: actorOf(c.var.caller) });

export const listWebhookEndpoints: Handler<"listWebhookEndpoints"> = async (c) => {
  const asked = await askedPage(c, c.req.valid("query"), repo.endpointOrder);
  const found = await repo.listEndpoints(c.var.db, c.var.caller.agencyId, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.endpointOrder.keysOf);
  return c.json({ success: true as const, webhook_endpoints: rows.map(repo.toPublicEndpoint), pagination }, 200);
};

export const createWebhookEndpoint: Handler<"createWebhookEndpoint"> = async (c) => {
  const row = await ops.createEndpoint(asCaller(c), c.var.caller.agencyId, c.req.valid("json"));
  return c.json({ ...endpointBody(row), secret: row.secret }, 201);
};

export const getWebhookEndpoint: Handler<"getWebhookEndpoint"> = async (c) =>
  c.json(endpointBody(await ops.requireEndpoint(c.var.db, c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid)), 200);

export const updateWebhookEndpoint: Handler<"updateWebhookEndpoint"> = async (c) => {
  const updated = await ops.updateEndpoint(asCaller(c), c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid, c.req.valid("json"));
  return c.json(endpointBody(updated), 200);
};

export const deleteWebhookEndpoint: Handler<"deleteWebhookEndpoint"> = async (c) => {
  const deleted = await ops.deleteEndpoint(asCaller(c), c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  return c.json(endpointBody(deleted), 200);
};

export const rotateWebhookSecret: Handler<"rotateWebhookSecret"> = async (c) => {
  const rotated = await ops.rotateEndpointSecret(asCaller(c), c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  return c.json({ success: true as const, secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt! }, 200);
};

export const testWebhookEndpoint: Handler<"testWebhookEndpoint"> = async (c) => {
  const eventId = await ops.testEndpoint(asCaller(c), c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  return c.json({ success: true as const, event_uuid: eventId }, 202);
};

export const listWebhookDeliveries: Handler<"listWebhookDeliveries"> = async (c) => {
  const endpoint = await ops.requireEndpoint(c.var.db, c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  const asked = await askedPage(c, c.req.valid("query"), repo.attemptOrder);
  const found = await repo.listAttempts(c.var.db, c.var.caller.agencyId, endpoint.id, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.attemptOrder.keysOf);
  return c.json({ success: true as const, deliveries: rows.map(repo.toPublicAttempt), pagination }, 200);
};

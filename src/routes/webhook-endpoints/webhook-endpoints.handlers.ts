import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { paginationOf } from "@/lib/pagination";
import { webhookUrlProblem } from "@/lib/webhook-url";
import * as repo from "./webhook-endpoints.repository";
import type * as routes from "./webhook-endpoints.routes";
import { webhookMessages } from "./webhook-endpoints.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;
type Ctx = { env: AppBindings["Bindings"]; var: AppBindings["Variables"] };

const endpointBody = (row: repo.WebhookEndpointRow) => ({ success: true as const, webhook_endpoint: repo.toPublicEndpoint(row) });

/** The URL rules (src/lib/webhook-url.ts): a URL that breaks one is 400 naming it. */
function checkUrl(c: Ctx, url: string | undefined) {
  if (url === undefined) return;
  const problem = webhookUrlProblem(url, { allowLoopback: c.env.ALLOW_LOOPBACK_WEBHOOKS === "true" });
  if (problem) throw badRequest(problem);
}

async function requireEndpoint(c: Ctx, endpointId: string) {
  const endpoint = await repo.getEndpoint(c.var.db, c.var.caller.agencyId, endpointId);
  if (!endpoint) throw notFound(webhookMessages.notFound);
  return endpoint;
}

export const listWebhookEndpoints: Handler<"listWebhookEndpoints"> = async (c) => {
  const page = c.req.valid("query");
  const { rows, total } = await repo.listEndpoints(c.var.db, c.var.caller.agencyId, page);
  return c.json({ success: true as const, webhook_endpoints: rows.map(repo.toPublicEndpoint), pagination: paginationOf(page, total) }, 200);
};

export const createWebhookEndpoint: Handler<"createWebhookEndpoint"> = async (c) => {
  const body = c.req.valid("json");
  checkUrl(c, body.url);
  const row = await repo.createEndpoint(c.var.db, c.var.caller.agencyId, body);
  if (!row) throw conflict(webhookMessages.tooMany);
  return c.json({ ...endpointBody(row), secret: row.secret }, 201);
};

export const getWebhookEndpoint: Handler<"getWebhookEndpoint"> = async (c) =>
  c.json(endpointBody(await requireEndpoint(c, c.req.valid("param").webhook_endpoint_uuid)), 200);

export const updateWebhookEndpoint: Handler<"updateWebhookEndpoint"> = async (c) => {
  const body = c.req.valid("json");
  checkUrl(c, body.url);
  const updated = await repo.updateEndpoint(c.var.db, c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid, body);
  if (!updated) throw notFound(webhookMessages.notFound);
  return c.json(endpointBody(updated), 200);
};

export const deleteWebhookEndpoint: Handler<"deleteWebhookEndpoint"> = async (c) => {
  const deleted = await repo.deleteEndpoint(c.var.db, c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  if (!deleted) throw notFound(webhookMessages.notFound);
  return c.json(endpointBody(deleted), 200);
};

export const rotateWebhookSecret: Handler<"rotateWebhookSecret"> = async (c) => {
  const rotated = await repo.rotateSecret(c.var.db, c.var.caller.agencyId, c.req.valid("param").webhook_endpoint_uuid);
  if (!rotated) throw notFound(webhookMessages.notFound);
  return c.json({ success: true as const, secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt! }, 200);
};

export const testWebhookEndpoint: Handler<"testWebhookEndpoint"> = async (c) => {
  const endpoint = await requireEndpoint(c, c.req.valid("param").webhook_endpoint_uuid);
  const eventId = await repo.sendTest(c.var.db, endpoint);
  return c.json({ success: true as const, event_uuid: eventId }, 202);
};

export const listWebhookDeliveries: Handler<"listWebhookDeliveries"> = async (c) => {
  const endpoint = await requireEndpoint(c, c.req.valid("param").webhook_endpoint_uuid);
  const page = c.req.valid("query");
  const { rows, total } = await repo.listAttempts(c.var.db, c.var.caller.agencyId, endpoint.id, page);
  return c.json({ success: true as const, deliveries: rows.map(repo.toPublicAttempt), pagination: paginationOf(page, total) }, 200);
};

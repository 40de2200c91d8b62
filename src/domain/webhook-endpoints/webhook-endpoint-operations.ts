import type { Db } from "@/db/client";
import type { Env } from "@/env";
import { auditStatement, type Actor, type AuditAction } from "@/domain/audit/audit-log";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { webhookUrlProblem } from "@/lib/webhook-url";
import * as repo from "./webhook-endpoints.repository";
import { webhookMessages, type EndpointInput, type EndpointPatch } from "./webhook-endpoints.rules";

/**
 * The one implementation of every change to a webhook endpoint: the Partner API (actor: the
 * API key) and the agency dashboard (actor: the signed-in member) both call these, so the URL
 * rules, the endpoint limit and the audit entry (in the change's own batch) hold either way.
 */
export interface EndpointActionContext {
  db: Db;
  env: Pick<Env, "ALLOW_LOOPBACK_WEBHOOKS">;
  actor: Actor;
}

/** The URL rules (src/lib/webhook-url.ts): a URL that breaks one is 400 naming it. */
function checkUrl(env: EndpointActionContext["env"], url: string | undefined) {
  if (url === undefined) return;
  const problem = webhookUrlProblem(url, { allowLoopback: env.ALLOW_LOOPBACK_WEBHOOKS === "true" });
  if (problem) throw badRequest(problem);
}

/** The endpoint if it is the agency's; another agency's endpoint looks missing. */
export async function requireEndpoint(db: Db, agencyId: string, endpointId: string) {
  const endpoint = await repo.getEndpoint(db, agencyId, endpointId);
  if (!endpoint) throw notFound(webhookMessages.notFound);
  return endpoint;
}

/** The audit entry of a write, written only if the write changed the endpoint. */
const audit = (ctx: EndpointActionContext, agencyId: string, action: AuditAction, detail: Record<string, unknown>) => (endpointId: string) =>
  auditStatement(ctx.db, { agencyId, actor: ctx.actor, action, targetType: "webhook_endpoint", targetId: endpointId, detail }, { ifChanged: true });

/** Returns the endpoint with its secret (shown once). */
export async function createEndpoint(ctx: EndpointActionContext, agencyId: string, input: EndpointInput) {
  checkUrl(ctx.env, input.url);
  const row = await repo.createEndpoint(ctx.db, agencyId, input, audit(ctx, agencyId, "webhook_endpoint.created", { url: input.url, events: input.events }));
  if (!row) throw conflict(webhookMessages.tooMany);
  return row;
}

/** What a patch changes, field by field, for its audit entry. */
function changesOf(endpoint: repo.WebhookEndpointRow, patch: EndpointPatch) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const fields = [
    ["url", endpoint.url, patch.url],
    ["events", endpoint.events, patch.events],
    ["description", endpoint.description, patch.description === undefined ? undefined : patch.description || null],
    ["status", endpoint.status, patch.status],
  ] as const;
  for (const [field, from, to] of fields) {
    if (to !== undefined && JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}

/** A patch that only turns the endpoint on or off is recorded as that. */
const updateAction = (patch: EndpointPatch): AuditAction => {
  const fields = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (fields.length === 1 && patch.status) return patch.status === "enabled" ? "webhook_endpoint.enabled" : "webhook_endpoint.disabled";
  return "webhook_endpoint.updated";
};

export async function updateEndpoint(ctx: EndpointActionContext, agencyId: string, endpointId: string, patch: EndpointPatch) {
  checkUrl(ctx.env, patch.url);
  // Read first: a missing endpoint is 404 before any write, and the entry says what changed.
  const endpoint = await requireEndpoint(ctx.db, agencyId, endpointId);
  const updated = await repo.updateEndpoint(
    ctx.db,
    agencyId,
    endpoint.id,
    patch,
    audit(ctx, agencyId, updateAction(patch), { url: patch.url ?? endpoint.url, changes: changesOf(endpoint, patch) }),
  );
  if (!updated) throw notFound(webhookMessages.notFound);
  return updated;
}

export async function deleteEndpoint(ctx: EndpointActionContext, agencyId: string, endpointId: string) {
  const endpoint = await requireEndpoint(ctx.db, agencyId, endpointId);
  const deleted = await repo.deleteEndpoint(ctx.db, agencyId, endpoint.id, audit(ctx, agencyId, "webhook_endpoint.deleted", { url: endpoint.url }));
  if (!deleted) throw notFound(webhookMessages.notFound);
  return deleted;
}

/** Returns the endpoint with its new secret (shown once); the previous one signs beside it for 24 hours. */
export async function rotateEndpointSecret(ctx: EndpointActionContext, agencyId: string, endpointId: string) {
  const endpoint = await requireEndpoint(ctx.db, agencyId, endpointId);
  const rotated = await repo.rotateSecret(ctx.db, agencyId, endpoint.id, audit(ctx, agencyId, "webhook_endpoint.secret_rotated", { url: endpoint.url }));
  if (!rotated) throw notFound(webhookMessages.notFound);
  return rotated;
}

/** Sends a `ping` to the endpoint only; returns the event's id. */
export async function testEndpoint(ctx: EndpointActionContext, agencyId: string, endpointId: string) {
  const endpoint = await requireEndpoint(ctx.db, agencyId, endpointId);
  return repo.sendTest(ctx.db, endpoint, audit(ctx, agencyId, "webhook_endpoint.tested", { url: endpoint.url }));
}

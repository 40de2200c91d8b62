import { and, count, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { publishAfterWrite } from "@/db/outbox";
import { eventWithSnapshot, subscribedEndpoint, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { addDays, nowIso } from "@/lib/time";
import { newWebhookSecret } from "@/lib/webhooks/signature";
import { MAX_ENDPOINTS_PER_AGENCY, type EndpointInput, type SubscribableType, type EndpointPatch } from "./webhook-endpoints.rules";
import { commit } from "@/db/outbox";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * A statement to run in the same batch as an endpoint's write, directly after it (an audit
 * entry written with `ifChanged`, so it lands only when the write changed the endpoint).
 */
export type Alongside = (endpointId: string) => BatchItem<"sqlite">;

/** The public record: never the secrets. */
export const toPublicEndpoint = (e: WebhookEndpointRow) => ({
  webhook_endpoint_uuid: e.id,
  url: e.url,
  // Stored as validated by the schemas (a subscribable type, or "*").
  events: e.events as (SubscribableType | "*")[],
  status: e.status,
  disabled_reason: e.disabledReason === "failing" ? ("failing" as const) : null,
  description: e.description,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

export const toPublicAttempt = (a: typeof webhookAttempts.$inferSelect) => ({
  event_uuid: a.eventId,
  type: a.eventType as EventType,
  attempt: a.attempt,
  status_code: a.statusCode,
  error: a.error,
  duration_ms: a.durationMs,
  delivered: a.delivered,
  attempted_at: a.attemptedAt,
  next_attempt_at: a.nextAttemptAt,
});

const ofAgency = (agencyId: string, endpointId: string) =>
  and(eq(webhookEndpoints.id, endpointId.toLowerCase()), eq(webhookEndpoints.agencyId, agencyId));

export const getEndpoint = (db: Db, agencyId: string, endpointId: string) => db.select().from(webhookEndpoints).where(ofAgency(agencyId, endpointId)).get();

export const endpointOrder = listOrder("desc", { createdAt: webhookEndpoints.createdAt, id: webhookEndpoints.id });

export function listEndpoints(db: Db, agencyId: string, page: PageWindow) {
  const where = eq(webhookEndpoints.agencyId, agencyId);
  return readListPage(
    db,
    page,
    db.select().from(webhookEndpoints).where(endpointOrder.where(page, where)).orderBy(...endpointOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(webhookEndpoints).where(where),
  );
}

/**
 * Creates an endpoint unless the agency has MAX_ENDPOINTS_PER_AGENCY already: the count is in
 * the INSERT's own condition, so concurrent creates cannot pass the limit together.
 * Returns the row and its secret, or undefined at the limit.
 */
export async function createEndpoint(db: Db, agencyId: string, input: EndpointInput, alongside: Alongside) {
  const now = nowIso();
  const row: WebhookEndpointRow = {
    id: newId(),
    agencyId,
    url: input.url,
    events: input.events,
    description: input.description || null,
    status: "enabled",
    disabledReason: null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const values = sql.join(
    [
      row.id, row.agencyId, row.url, JSON.stringify(row.events), row.description, row.status, row.disabledReason, row.secret,
      row.previousSecret, row.previousSecretExpiresAt, row.failingSince, row.createdAt, row.updatedAt,
    ].map((v) => sql`${v}`),
    sql`, `,
  );
  const [inserted] = await commit(db, [
    db
      .insert(webhookEndpoints)
      .select(
        sql`SELECT ${values} WHERE (SELECT count(*) FROM ${webhookEndpoints} WHERE ${webhookEndpoints.agencyId} = ${agencyId}) < ${MAX_ENDPOINTS_PER_AGENCY}`,
      )
      .returning({ id: webhookEndpoints.id }),
    alongside(row.id),
  ]);
  return inserted.length > 0 ? row : undefined;
}

export async function updateEndpoint(db: Db, agencyId: string, endpointId: string, patch: EndpointPatch, alongside: Alongside) {
  const update = db
    .update(webhookEndpoints)
    .set({
      url: patch.url,
      events: patch.events,
      description: patch.description === undefined ? undefined : patch.description || null,
      status: patch.status,
      // Any status the partner sets is theirs, not our `failing`; turned on again or pointed
      // elsewhere, the failing run belongs to what was there before.
      ...(patch.status !== undefined ? { disabledReason: null } : {}),
      ...(patch.status === "enabled" || patch.url !== undefined ? { failingSince: null } : {}),
      updatedAt: nowIso(),
    })
    .where(ofAgency(agencyId, endpointId))
    .returning();
  const [rows] = await commit(db, [update, alongside(endpointId.toLowerCase())]);
  return rows[0];
}

/** Deletes the endpoint with its deliveries and their log, in one batch. Returns the deleted row. */
export async function deleteEndpoint(db: Db, agencyId: string, endpointId: string, alongside: Alongside) {
  const id = endpointId.toLowerCase();
  const [deleted] = await commit(db, [
    db.delete(webhookEndpoints).where(ofAgency(agencyId, id)).returning(),
    alongside(id),
    db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.agencyId, agencyId))),
    db.delete(webhookAttempts).where(and(eq(webhookAttempts.endpointId, id), eq(webhookAttempts.agencyId, agencyId))),
  ]);
  return deleted[0];
}

/** A new secret; the current one keeps signing beside it for 24 hours (one previous secret at a time). */
export async function rotateSecret(db: Db, agencyId: string, endpointId: string, alongside: Alongside) {
  const now = Date.now();
  const update = db
    .update(webhookEndpoints)
    .set({
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretExpiresAt: addDays(now, 1).toISOString(),
      secret: newWebhookSecret(),
      updatedAt: new Date(now).toISOString(),
    })
    .where(ofAgency(agencyId, endpointId))
    .returning();
  const [rows] = await commit(db, [update, alongside(endpointId.toLowerCase())]);
  return rows[0];
}

/** A `ping` event and its one delivery, to this endpoint only, in one batch. Returns the event id. */
export async function sendTest(db: Db, endpoint: WebhookEndpointRow, alongside: Alongside) {
  const now = nowIso();
  const ping = eventWithSnapshot(db, {
    agencyId: endpoint.agencyId,
    type: "ping",
    objectType: "ping",
    snapshot: { webhookEndpointUuid: endpoint.id },
  });
  await commit(db, [
    ping.statement,
    db.insert(webhookDeliveries).values({
      id: `${ping.id}:${endpoint.id}`,
      agencyId: endpoint.agencyId,
      eventId: ping.id,
      endpointId: endpoint.id,
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      enqueuedAt: null,
      createdAt: now,
      updatedAt: now,
    }),
    alongside(endpoint.id),
  ]);
  return ping.id;
}

/**
 * New deliveries of an event to every enabled endpoint of the agency subscribed to its type
 * (as the `events_fan_out` trigger makes them for a new event). Returns the endpoints' ids.
 * The event row is touched (changing nothing) in the same batch: deliveries have no fence of
 * their own on insert (src/db/agency-tables.ts), the event's update fence stands for them while
 * the agency moves.
 */
export async function redeliver(db: Db, agencyId: string, eventId: string, eventType: string) {
  const now = nowIso();
  const [, rows] = await commit(db, [
    db.update(events).set({ type: sql`${events.type}` }).where(and(eq(events.id, eventId), eq(events.agencyId, agencyId))),
    db
      .insert(webhookDeliveries)
      .select(
        sql`SELECT lower(hex(randomblob(16))), e.agency_id, ${eventId}, e.id, 'pending', 0, ${now}, NULL, ${now}, ${now}
            FROM ${webhookEndpoints} AS e WHERE ${subscribedEndpoint(agencyId, eventType)}`,
      )
      .returning({ endpointId: webhookDeliveries.endpointId }),
  ]);
  if (rows.length > 0) publishAfterWrite(db, eventId);
  return rows.map((r) => r.endpointId);
}

export const attemptOrder = listOrder("desc", { attemptedAt: webhookAttempts.attemptedAt, id: webhookAttempts.id });

/** The endpoint's attempts, newest first. */
export function listAttempts(db: Db, agencyId: string, endpointId: string, page: PageWindow) {
  const where = and(eq(webhookAttempts.endpointId, endpointId.toLowerCase()), eq(webhookAttempts.agencyId, agencyId));
  return readListPage(
    db,
    page,
    db.select().from(webhookAttempts).where(attemptOrder.where(page, where)).orderBy(...attemptOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(webhookAttempts).where(where),
  );
}

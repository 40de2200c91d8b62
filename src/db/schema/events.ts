import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

/**
 * The event log, written in the same `commit` batch as the change it records (a transactional
 * outbox). `snapshot` holds the changed row as stored (JSON of its driver values, plus any
 * joined fields its public record needs), taken in SQL by the same statement, so the event
 * always shows the row as that change left it; the API renders the public record from it.
 * Kept 30 days.
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    type: text("type").notNull(),
    /** Which resource `snapshot` is a row of (`contact`, `call`, ...): picks its renderer. */
    objectType: text("object_type").notNull(),
    snapshot: text("snapshot", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // GET /events, newest first, and by type.
    index("events_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("events_agency_type_created_idx").on(t.agencyId, t.type, t.createdAt, t.id),
    // The cron's 30-day prune.
    index("events_created_idx").on(t.createdAt),
  ],
);

export const webhookEndpointStatuses = ["enabled", "disabled"] as const;

/**
 * Where an agency wants its events delivered. `secret` signs deliveries (Standard Webhooks);
 * after a rotation `previous_secret` keeps signing beside it until `previous_secret_expires_at`.
 * `failing_since` is the first failed attempt of an unbroken run of failures (null after a
 * success): five days of that disables the endpoint.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    url: text("url").notNull(),
    /** JSON array of event types, or `["*"]`. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    status: text("status", { enum: webhookEndpointStatuses }).notNull(),
    /** Why the endpoint is disabled, when we disabled it (`failing`); null when enabled or disabled by the partner. */
    disabledReason: text("disabled_reason"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at"),
    failingSince: timestamp("failing_since"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhook_endpoints_agency_idx").on(t.agencyId, t.createdAt, t.id)],
);

export const webhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;

/**
 * One event for one endpoint: created with the event (by a trigger on `events`, so in the same
 * transaction) or by a test send or a redelivery, and attempted until delivered or given up.
 * `enqueued_at` says when its queue message was last sent, so the cron can re-send one that
 * was lost.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id").notNull(),
    eventId: text("event_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    status: text("status", { enum: webhookDeliveryStatuses }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    enqueuedAt: timestamp("enqueued_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_deliveries_event_idx").on(t.eventId),
    // The cron: pending deliveries that are due.
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
  ],
);

/** Every attempt of every delivery, for `GET /webhook-endpoints/{uuid}/deliveries`. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    delivered: integer("delivered", { mode: "boolean" }).notNull(),
    attemptedAt: timestamp("attempted_at").notNull(),
    nextAttemptAt: timestamp("next_attempt_at"),
  },
  (t) => [
    index("webhook_attempts_endpoint_idx").on(t.endpointId, t.attemptedAt, t.id),
    // The cron's prune of expired events' attempts.
    index("webhook_attempts_event_idx").on(t.eventId),
    uniqueIndex("webhook_attempts_delivery_attempt_unique").on(t.deliveryId, t.attempt),
  ],
);

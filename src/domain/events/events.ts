import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { awaitsCommit, awaitsCommitOfAll, awaitsCommitOfEach, publishAfterWrite } from "@/db/outbox";
import { events, webhookEndpoints } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { jsonList } from "@/db/json-list";

/**
 * Every event type. A type names what happened to the object in `data.object`, which is the
 * resource's public record as the change left it; `ping` is a test send.
 */
export const eventTypes = [
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "contact.restored",
  "appointment.booked",
  "appointment.updated",
  "appointment.canceled",
  "call.scheduled",
  "call.started",
  "call.completed",
  "call.failed",
  "call.canceled",
  "call.updated",
  "message.received",
  "message.sent",
  "message.updated",
  "message.note_added",
  "message.read",
  "message.unread",
  "lead_order.created",
  "lead_order.updated",
  "lead_order.paused",
  "lead_order.resumed",
  "lead_order.canceled",
  "path.created",
  "path.updated",
  "path.published",
  "path.deleted",
  "field.created",
  "field.updated",
  "field.archived",
  "user.created",
  "user.invited",
  "user.role_changed",
  "user.removed",
  "app.authorized",
  "app.revoked",
  "ping",
] as const;

export type EventType = (typeof eventTypes)[number];

/** The types grouped by resource for the reference page: `contact.created|updated|...`, ... */
export function eventTypesSummary(): string {
  const byResource = new Map<string, string[]>();
  for (const type of eventTypes) {
    const [resource, action] = type.split(".") as [string, string | undefined];
    byResource.set(resource, [...(byResource.get(resource) ?? []), ...(action ? [action] : [])]);
  }
  return [...byResource].map(([resource, actions]) => `\`${actions.length > 0 ? `${resource}.${actions.join("|")}` : resource}\``).join(", ");
}

/** What kind of record an event's snapshot is: picks the renderer of its public record. */
export const eventObjectTypes = [
  "contact",
  "appointment",
  "call",
  "message",
  "lead_order",
  "path",
  "field",
  "team_member",
  "invite",
  "app_grant",
  "ping",
] as const;

export type EventObjectType = (typeof eventObjectTypes)[number];

/**
 * The row of `table` as its driver stores it, as a SQL `json_object` keyed by the columns'
 * TypeScript names, plus `extra` fields (joined values the public record needs). Read back
 * with `rowFromSnapshot`.
 */
function snapshotSql(table: SQLiteTable, extra: Record<string, SQL>, replaced: Record<string, SQL> = {}): SQL {
  const fields = [
    ...Object.entries(getTableColumns(table)).map(([key, column]) => [key, replaced[key] ?? sql`${column}`] as const),
    ...Object.entries(extra),
  ];
  return sql`json_object(${sql.join(
    fields.map(([key, value]) => sql`${key}, ${value}`),
    sql`, `,
  )})`;
}

export interface EventInput {
  agencyId: string;
  type: EventType;
  objectType: EventObjectType;
  /** The table of the changed row, and the condition that selects exactly that row. */
  table: SQLiteTable;
  where: SQL | undefined;
  /** Fields the public record needs from other tables, as scalar subqueries. */
  extra?: Record<string, SQL>;
  /**
   * Write the event only if the statement just before it in the batch changed a row (SQLite's
   * `changes()`), for writes that are conditional on the row's state: no change, no event.
   */
  ifChanged?: boolean;
}

/**
 * How many endpoints the `events_fan_out` trigger delivers an event of `type` to (the trigger's
 * own condition), for the event INSERT's RETURNING: RETURNING is computed before AFTER triggers
 * run, so it cannot count the deliveries themselves. Bound to the values rather than correlated
 * with the inserted row, which not every SQLite build resolves the same way inside RETURNING.
 */
const subscribersSql = (agencyId: string, type: EventType) =>
  sql<number>`(SELECT count(*) FROM ${webhookEndpoints} AS e WHERE ${subscribedEndpoint(agencyId, type)})`;

/**
 * The enabled endpoints of the agency subscribed to `type` (or to "*"), as a condition on
 * `webhook_endpoints AS e`: the rule of the `events_fan_out` trigger (migration 0007), for the
 * statements that apply it again (the subscriber count, a redelivery).
 */
export const subscribedEndpoint = (agencyId: string, type: string) =>
  sql`e.agency_id = ${agencyId} AND e.status = 'enabled' AND EXISTS (SELECT 1 FROM json_each(e.events) WHERE json_each.value IN ('*', ${type}))`;

/**
 * The event of a change, as one statement for the change's own `commit` batch (a transactional
 * outbox: both commit, or neither). It copies the changed row in SQL, so the event holds the
 * row exactly as the batch left it, and a trigger on `events` creates its webhook deliveries
 * in the same statement. Place it after the write it records (directly after, with `ifChanged`),
 * and run it through `commit` (src/db/outbox.ts), which reads whether it has deliveries to publish.
 */
export function eventStatement(db: Db, input: EventInput) {
  const id = newId();
  const now = nowIso();
  const snapshot = snapshotSql(input.table, input.extra ?? {});
  const changed = input.ifChanged ? sql` AND changes() > 0` : sql``;
  // Values in the table's column order (drizzle lists every column for INSERT ... SELECT).
  const statement = db
    .insert(events)
    .select(
      sql`SELECT ${id}, ${input.agencyId}, ${input.type}, ${input.objectType}, ${snapshot}, ${now} FROM ${input.table} WHERE ${input.where}${changed} LIMIT 1`,
    )
    .returning({ subscribers: subscribersSql(input.agencyId, input.type) });
  awaitsCommit(statement, id);
  return statement;
}

/** A random (version 4) UUID made by SQLite, one per row of the statement that evaluates it. */
const sqlUuid = sql`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

/**
 * The events of one change to any number of rows (every contact holding a phone number), as one
 * statement for the change's `commit` batch: an event for each row `where` selects, its snapshot
 * the row as the change will leave it (`set`: the changed columns' new values, by TypeScript
 * name). Place it just before the write, whose condition must select the same rows: the events
 * are then exactly the rows that change, in the same transaction, however many they are. Ids are
 * made in SQL, one per row; `commit` reads them back to publish the ones with deliveries. `at`
 * dates the events (and should be the time the write stamps on the rows).
 */
export function eventsForEachRow(db: Db, input: Omit<EventInput, "ifChanged" | "extra"> & { set: Record<string, SQL>; at: string }) {
  const snapshot = snapshotSql(input.table, {}, input.set);
  const statement = db
    .insert(events)
    .select(sql`SELECT ${sqlUuid}, ${input.agencyId}, ${input.type}, ${input.objectType}, ${snapshot}, ${input.at} FROM ${input.table} WHERE ${input.where}`)
    .returning({ id: events.id, subscribers: subscribersSql(input.agencyId, input.type) });
  awaitsCommitOfEach(statement);
  return statement;
}

/**
 * The events of rows just written, one each, for the write's `commit` batch, placed after the
 * write: `ids` the rows' ids, the snapshots the rows as the batch left them. Two statements
 * whatever the number of rows: the events, whose ids are made here and the rows' ids go in as one
 * JSON list walked by json_each (CROSS JOIN keeping it the outer loop, so each row is one probe
 * of the primary key; an IN list binds a value each, and D1 binds at most 100), and the count of
 * endpoints subscribed to the type, which `commit` reads to publish them all or none. A RETURNING
 * per event, as eventStatement's, would read each event once more.
 */
export function eventsOfRows(
  db: Db,
  input: { agencyId: string; type: EventType; objectType: EventObjectType; table: SQLiteTable & { id: SQLiteColumn; agencyId: SQLiteColumn }; ids: string[]; at: string },
) {
  const pairs = input.ids.map((rowId) => [rowId, newId()] as const);
  const snapshot = snapshotSql(input.table, {});
  const insert = db
    .insert(events)
    .select(
      sql`SELECT json_extract(j.value, '$[1]'), ${input.agencyId}, ${input.type}, ${input.objectType}, ${snapshot}, ${input.at} FROM json_each(${jsonList(pairs)}) AS j CROSS JOIN ${input.table} WHERE ${input.table.id} = json_extract(j.value, '$[0]') AND ${input.table.agencyId} = ${input.agencyId}`,
    );
  const subscribers = db
    .select({ subscribers: sql<number>`count(*)` })
    .from(sql`${webhookEndpoints} AS e`)
    .where(subscribedEndpoint(input.agencyId, input.type));
  awaitsCommitOfAll(
    subscribers,
    pairs.map(([, eventId]) => eventId),
  );
  return [insert, subscribers] as const;
}

/**
 * An event whose object is not a stored row (a `ping`): its snapshot is given. Returns the
 * statement and the event's id.
 */
export function eventWithSnapshot(db: Db, input: { agencyId: string; type: EventType; objectType: EventObjectType; snapshot: Record<string, unknown> }) {
  const id = newId();
  publishAfterWrite(db, id);
  const statement = db.insert(events).values({ id, agencyId: input.agencyId, type: input.type, objectType: input.objectType, snapshot: input.snapshot, createdAt: nowIso() });
  return { id, statement };
}

/** A row of `table` from its snapshot: each column read back as drizzle reads it from the driver. */
export function rowFromSnapshot<T extends SQLiteTable>(table: T, snapshot: Record<string, unknown>): T["$inferSelect"] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = snapshot[key];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T["$inferSelect"];
}

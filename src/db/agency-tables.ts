import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

/**
 * Every table that holds an agency's records, in the order a move copies them: a table after
 * the tables its foreign keys point to (D1 enforces foreign keys), and `events` before
 * `webhook_endpoints`, so the `events_fan_out` trigger finds no endpoint to create deliveries
 * for while events are copied (the deliveries are copied as they are, with their state).
 * A purge deletes in the reverse order.
 *
 * `scope` selects the agency's rows (`?1` is the agency id). `copy: false` marks rows a move
 * leaves behind: an idempotency key still `in_progress` belongs to a request the move's freeze
 * refused, and its retry must find the key free on the new shard.
 *
 * Not listed: `record_counts` and `contacts_fts`, which triggers keep from `contacts` and
 * `voice_calls` (a move rebuilds them by inserting; a purge empties them by deleting), and the
 * directory's own tables. test/domain/agencies/move-agency.test.ts fails when a table with an `agency_id`
 * column is missing here or has no freeze triggers.
 */
export interface AgencyTable {
  name: string;
  columns: string[];
  /** The columns of its primary key: a copy skips a row the target already has under it. */
  primaryKey: string[];
  scope: string;
  /** Rows of the scope a move does not copy (deleted with the rest by the purge). */
  copyScope?: string;
  /** Writes the fence's triggers watch (migration 0011): all three unless said otherwise. */
  fenced: readonly ("insert" | "update" | "delete")[];
}

const AGENCY_ROWS = "agency_id = ?1";

const tablesInCopyOrder: [SQLiteTable, Partial<Omit<AgencyTable, "name" | "columns" | "primaryKey">>?][] = [
  [schema.agencies, { scope: "id = ?1" }],
  [schema.agencySettings],
  [schema.agencySecrets],
  [schema.members],
  [schema.apiKeys],
  [schema.burnedSecrets, { scope: "key_id IN (SELECT id FROM api_keys WHERE agency_id = ?1)" }],
  [schema.securityEvents],
  [schema.auditLog],
  [schema.dashboardLinks],
  [schema.dashboardSessions],
  [schema.fields],
  [schema.contacts],
  // Tags are inserted only in the batch that writes their (fenced) contact: created with it, or
  // replaced when a patch sets tags, after the contact's update (contacts.repository.ts). An insert
  // trigger would cost every contact write a row read, as with deliveries below.
  [schema.contactTags, { fenced: ["update", "delete"] }],
  [schema.calendarHours],
  [schema.bookingWidgets],
  [schema.appointments],
  [schema.messages],
  [schema.smsSuppressions],
  [schema.paths],
  [schema.pathVersions],
  [schema.pathEvents],
  [schema.leadOrders],
  [schema.invites],
  [schema.voiceAgents],
  [schema.voicePhoneNumbers],
  [schema.voiceCalls],
  [schema.wallets],
  [schema.walletLedger],
  [schema.idempotencyKeys, { scope: AGENCY_ROWS, copyScope: `${AGENCY_ROWS} AND state = 'done'` }],
  [schema.events],
  [schema.webhookEndpoints],
  // Deliveries are inserted by the `events_fan_out` trigger of a (fenced) event insert, by a test
  // send with its (fenced) ping event, and by a redelivery, which touches its (fenced) event in the
  // same batch (webhook-endpoints.repository.ts). A trigger on their inserts would cost every event
  // a row read, as SQLite then stages the fan-out's INSERT ... SELECT, even when it inserts nothing.
  [schema.webhookDeliveries, { fenced: ["update", "delete"] }],
  [schema.webhookAttempts],
  [schema.appGrants],
];

export const agencyTables: readonly AgencyTable[] = tablesInCopyOrder.map(([table, options]) => {
  const config = getTableConfig(table);
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  if (primaryKey.length === 0) throw new Error(`${config.name} has no primary key: a move could not tell a row it already copied`);
  return {
    name: config.name,
    columns: config.columns.map((c) => c.name),
    primaryKey,
    scope: options?.scope ?? AGENCY_ROWS,
    copyScope: options?.copyScope,
    fenced: options?.fenced ?? ["insert", "update", "delete"],
  };
});

/** Tables with an `agency_id` that a move neither copies nor freezes: triggers derive them. */
export const derivedAgencyTables = ["record_counts"] as const;

/**
 * The agency id a freeze trigger checks, for a row of `table` (`row` is NEW or OLD): the
 * table's own `agency_id`, the agency's `id`, or the agency of a burned secret's key.
 */
export function freezeAgencyOf(table: AgencyTable, row: "NEW" | "OLD") {
  if (table.name === "agencies") return `${row}.id`;
  if (table.name === "burned_secrets") return `(SELECT agency_id FROM api_keys WHERE id = ${row}.key_id)`;
  return `${row}.agency_id`;
}

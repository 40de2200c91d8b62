import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";

/**
 * The directory (docs/decisions/shards-and-moves.md): where each agency lives, and what must
 * be found before the agency is known. It is read and written only in the database bound as
 * `DB`, which is also the first shard; every other database carries these tables empty, since
 * one `migrations/` folder serves them all.
 */

/** D1 location hints, and the `eu` jurisdiction, a shard may be created in. */
export const shardRegions = ["wnam", "enam", "weur", "eeur", "apac", "oc", "eu"] as const;
export type ShardRegion = (typeof shardRegions)[number];

/**
 * The shards the operator registered: each names the Worker binding of its D1 database (`DB`,
 * `DB_<NAME>`), the region it was created in (null: not recorded, so never chosen by region),
 * and whether it takes new agencies.
 */
export const shards = sqliteTable("shards", {
  name: text("name").primaryKey(),
  region: text("region", { enum: shardRegions }),
  open: integer("open", { mode: "boolean" }).notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Where each agency lives. `moving_to` is set while a move copies the agency to another shard
 * (its writes answer 503 meanwhile), with `move_heartbeat_at` renewed by every step of the move,
 * so a move whose workflow stopped is recognised and rolled back. `leftover_shard` names a shard
 * that still holds a copy to remove: the old copy after a switch, or the partial copy of a move
 * rolled back.
 */
export const agencyDirectory = sqliteTable(
  "agency_directory",
  {
    agencyId: text("agency_id").primaryKey(),
    shard: text("shard").notNull(),
    movingTo: text("moving_to"),
    moveHeartbeatAt: timestamp("move_heartbeat_at"),
    leftoverShard: text("leftover_shard"),
    createdAt: createdAt(),
  },
  (t) => [index("agency_directory_shard_idx").on(t.shard)],
);

/** What a move is doing (docs/decisions/shards-and-moves.md); `done` and `failed` are final. */
export const agencyMoveStates = ["copying", "verifying", "switching", "done", "failed"] as const;
export type AgencyMoveState = (typeof agencyMoveStates)[number];

/**
 * Every move of an agency, the latest shown by the operator API. The id is also the id of the
 * move's Workflow instance. `rows_total` is counted once the agency is fenced (null before);
 * `rows_copied` is set, not added to, by each copy step, so a step run twice counts once.
 */
export const agencyMoves = sqliteTable(
  "agency_moves",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id").notNull(),
    fromShard: text("from_shard").notNull(),
    toShard: text("to_shard").notNull(),
    state: text("state", { enum: agencyMoveStates }).notNull(),
    rowsCopied: integer("rows_copied").notNull().default(0),
    rowsTotal: integer("rows_total"),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp("finished_at"),
  },
  (t) => [index("agency_moves_agency_idx").on(t.agencyId, t.createdAt)],
);

export const directoryRecordKinds = ["api_key", "member"] as const;

/**
 * Records named before their agency is known: an API key (a token carries its key id; the
 * operator API's key routes) and a team member (the operator's dashboard-link route). Ids never
 * change agency, so a move leaves these rows as they are. A row is written just before its record
 * (src/db/directory-records.ts); `created_at` (null for rows older than the column) tells the
 * orphan sweep a create still under way from a row whose record never came.
 */
export const directoryRecords = sqliteTable(
  "directory_records",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: directoryRecordKinds }).notNull(),
    agencyId: text("agency_id").notNull(),
    createdAt: timestamp("created_at"),
  },
  (t) => [index("directory_records_agency_idx").on(t.agencyId, t.kind)],
);

/**
 * Shard side: agencies whose writes this database refuses. Every agency table has triggers
 * (migration 0011) that abort a write of a listed agency with `agency_moving`, which the API
 * answers as 503: `moving` while a move copies the agency away, `moved` for good once it lives
 * elsewhere (a request that was routed here before the switch can then never write to the
 * stale copy). `purging` exists only inside a purge batch, which sets it, deletes, and sets
 * `moved` again: no other statement ever sees it, so only the move's own deletes get through.
 */
export const agencyFreezeStates = ["moving", "moved", "purging"] as const;

export const agencyFreezes = sqliteTable("agency_freezes", {
  agencyId: text("agency_id").primaryKey(),
  state: text("state", { enum: agencyFreezeStates }).notNull(),
  createdAt: createdAt(),
});

/**
 * Each agency's SMS sender number (E.164), found before the agency is known: an inbound SMS
 * names only the number it was sent to. One agency per number, one number per agency.
 */
export const smsNumbers = sqliteTable(
  "sms_numbers",
  {
    number: text("number").primaryKey(),
    agencyId: text("agency_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("sms_numbers_agency_unique").on(t.agencyId)],
);

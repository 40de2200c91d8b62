import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const countKinds = ["contacts.live", "contacts.deleted", "voice_calls"] as const;
export type CountKind = (typeof countKinds)[number];

/**
 * Row counts per agency, kept exact by SQLite triggers (migration 0004) in the same
 * statement as every insert, soft delete, restore and delete. A list's `total` reads one
 * row here instead of counting the agency's rows, so a page costs the same at 1,000 and at
 * 100,000 records.
 */
export const recordCounts = sqliteTable(
  "record_counts",
  {
    agencyId: text("agency_id").notNull(),
    kind: text("kind", { enum: countKinds }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agencyId, t.kind] })],
);

import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export const fieldTypes = ["text", "number", "date", "boolean", "select", "multiselect"] as const;
export type FieldType = (typeof fieldTypes)[number];

/** Custom field definitions. Deleting archives; an archived key may be reused. */
export const fields = sqliteTable(
  "fields",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    key: text("key").notNull(),
    label: text("label").notNull(),
    type: text("type", { enum: fieldTypes }).notNull(),
    options: text("options", { mode: "json" }).$type<string[]>().notNull(),
    archivedAt: timestamp("archived_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("fields_agency_idx").on(t.agencyId, t.createdAt, t.id),
    uniqueIndex("fields_agency_key_live_unique").on(t.agencyId, t.key).where(sql.raw("archived_at IS NULL")),
  ],
);

import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export const pathStatuses = ["draft", "published", "archived"] as const;

/**
 * Path builder paths. The partner routes arrive with the paths issue; the table exists now
 * so that contacts, bookings and operator path events can check `path_uuid` for real.
 */
export const paths = sqliteTable(
  "paths",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    description: text("description"),
    status: text("status", { enum: pathStatuses }).notNull(),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    version: integer("version").notNull(),
    publishedVersion: integer("published_version"),
    publishedAt: timestamp("published_at"),
    deletedAt: timestamp("deleted_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("paths_agency_idx").on(t.agencyId, t.createdAt, t.id)],
);

export const pathEventTypes = ["view", "lead", "booking"] as const;

export const pathEvents = sqliteTable(
  "path_events",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    pathId: text("path_id").notNull(),
    type: text("type", { enum: pathEventTypes }).notNull(),
    step: text("step"),
    contactId: text("contact_id"),
    occurredAt: timestamp("occurred_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("path_events_report_idx").on(t.agencyId, t.pathId, t.occurredAt)],
);

import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { updatedAt } from "./columns";

/**
 * Curated agency settings a partner may read and change. The agency name and calling
 * timezone live on `agencies`; the rest is here as JSON validated by the settings schema.
 */
export const agencySettings = sqliteTable("agency_settings", {
  agencyId: text("agency_id")
    .primaryKey()
    .references(() => agencies.id),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  updatedAt: updatedAt(),
});

/**
 * OAuth tokens and other secrets, kept in their own table so that no settings query can
 * select them by accident. Never returned by any route.
 */
export const agencySecrets = sqliteTable("agency_secrets", {
  agencyId: text("agency_id")
    .notNull()
    .references(() => agencies.id),
  name: text("name").notNull(),
  value: text("value").notNull(),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.agencyId, t.name] })]);

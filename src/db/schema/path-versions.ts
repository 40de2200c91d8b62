import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { timestamp } from "./columns";
import { paths } from "./paths";

/** Every published version of a path, kept for its history. */
export const pathVersions = sqliteTable(
  "path_versions",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    pathId: text("path_id")
      .notNull()
      .references(() => paths.id),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    publishedAt: timestamp("published_at").notNull(),
  },
  (t) => [uniqueIndex("path_versions_path_version_unique").on(t.pathId, t.version)],
);

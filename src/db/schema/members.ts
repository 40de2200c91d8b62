import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export const memberRoles = ["owner", "admin", "agent"] as const;

/** Agency team members; `agent_uuid` in the API. Removal is a soft delete. */
export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
    role: text("role", { enum: memberRoles }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    removedAt: timestamp("removed_at"),
  },
  (t) => [
    index("members_agency_idx").on(t.agencyId, t.createdAt, t.id),
    uniqueIndex("members_agency_email_live_unique")
      .on(t.agencyId, t.email)
      .where(sql.raw("removed_at IS NULL")),
  ],
);

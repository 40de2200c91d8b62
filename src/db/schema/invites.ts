import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp } from "./columns";
import { memberRoles } from "./members";

export const inviteStatuses = ["pending", "accepted", "revoked", "expired"] as const;

export const invites = sqliteTable(
  "invites",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    email: text("email").notNull(),
    role: text("role", { enum: memberRoles }).notNull(),
    status: text("status", { enum: inviteStatuses }).notNull(),
    expiresAt: timestamp("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("invites_agency_idx").on(t.agencyId, t.createdAt, t.id),
    uniqueIndex("invites_agency_email_pending_unique").on(t.agencyId, t.email).where(sql.raw("status = 'pending'")),
  ],
);

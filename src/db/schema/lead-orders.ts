import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export const leadOrderStatuses = ["active", "paused", "canceled"] as const;

export const leadOrders = sqliteTable(
  "lead_orders",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    status: text("status", { enum: leadOrderStatuses }).notNull(),
    dailyMax: integer("daily_max").notNull(),
    states: text("states", { mode: "json" }).$type<string[]>().notNull(),
    deliveredCount: integer("delivered_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    canceledAt: timestamp("canceled_at"),
  },
  (t) => [index("lead_orders_agency_idx").on(t.agencyId, t.createdAt, t.id)],
);

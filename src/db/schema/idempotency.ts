import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp } from "./columns";

/** Stored first responses of POSTs sent with an Idempotency-Key, kept for 24 hours. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    agencyId: text("agency_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agencyId, t.key] }), index("idempotency_keys_expiry_idx").on(t.expiresAt)],
);

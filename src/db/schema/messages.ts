import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp } from "./columns";

export const messageChannels = ["sms", "note"] as const;
export const messageDirections = ["inbound", "outbound", "internal"] as const;

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    contactId: text("contact_id").notNull(),
    channel: text("channel", { enum: messageChannels }).notNull(),
    direction: text("direction", { enum: messageDirections }).notNull(),
    body: text("body").notNull(),
    /** Delivery state of an outbound SMS from the provider; null for notes and inbound. */
    deliveryStatus: text("delivery_status"),
    providerMessageId: text("provider_message_id"),
    readAt: timestamp("read_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("messages_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("messages_agency_contact_idx").on(t.agencyId, t.contactId, t.createdAt, t.id),
    index("messages_agency_unread_idx").on(t.agencyId, t.readAt, t.createdAt, t.id),
  ],
);

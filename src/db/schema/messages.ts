import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    /** Why the provider could not deliver an outbound SMS, with its error code (Twilio: `30003 ...`); null otherwise. */
    deliveryError: text("delivery_error"),
    readAt: timestamp("read_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("messages_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("messages_agency_contact_idx").on(t.agencyId, t.contactId, t.createdAt, t.id),
    index("messages_agency_unread_idx").on(t.agencyId, t.readAt, t.createdAt, t.id),
    // A provider's message id is stored once: an inbound SMS the provider sends again (same
    // MessageSid) is one message, and a status callback finds its message by it.
    uniqueIndex("messages_provider_message_unique").on(t.providerMessageId).where(sql.raw("provider_message_id IS NOT NULL")),
  ],
);

import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    // The send of an outbound SMS through the `sms-sends` queue (docs/decisions/real-providers.md,
    // "Outbound SMS through a queue"); none of it is public.
    /** The number the SMS goes to (E.164), fixed when it is queued; null for other messages. */
    toNumber: text("to_number"),
    /** Attempts claimed so far; each claim adds one, so a stale attempt can tell it was overtaken. */
    sendAttempts: integer("send_attempts").notNull().default(0),
    /** When the first attempt was claimed: retries stop an hour after it. */
    sendFirstAttemptAt: timestamp("send_first_attempt_at"),
    /** When the next attempt is due, or the end of the lease of the attempt running now; null when none is pending. */
    sendNextAttemptAt: timestamp("send_next_attempt_at"),
    /** An attempt is running (or its consumer died running it): what it came to is not known yet. */
    sendInFlight: integer("send_in_flight", { mode: "boolean" }).notNull().default(false),
    /** An earlier attempt may have reached the provider unanswered: look it up there before sending again. */
    sendLookupNeeded: integer("send_lookup_needed", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("messages_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("messages_agency_contact_idx").on(t.agencyId, t.contactId, t.createdAt, t.id),
    index("messages_agency_unread_idx").on(t.agencyId, t.readAt, t.createdAt, t.id),
    // A provider's message id is stored once: an inbound SMS the provider sends again (same
    // MessageSid) is one message, and a status callback finds its message by it.
    uniqueIndex("messages_provider_message_unique").on(t.providerMessageId).where(sql.raw("provider_message_id IS NOT NULL")),
    // The sweep's search for sends whose queue message was lost: only messages still waiting.
    index("messages_send_due_idx").on(t.sendNextAttemptAt).where(sql.raw("delivery_status = 'queued' AND send_next_attempt_at IS NOT NULL")),
  ],
);

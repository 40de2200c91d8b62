import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { timestamp } from "./columns";

export const suppressionSources = ["keyword", "api"] as const;

/**
 * Phone numbers an agency may not text (docs/decisions/sms-opt-out.md): the opt-out belongs to
 * the number, not to a contact, so it outlives a contact's delete, re-create or change of phone.
 * A row is the suppression; lifting it (the person texts START) deletes the row. Contacts show
 * their number's state in `contacts.sms_opt_out`, written in the same batch as every change here.
 */
export const smsSuppressions = sqliteTable(
  "sms_suppressions",
  {
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    /** E.164, as contacts store their phone. */
    number: text("number").notNull(),
    since: timestamp("since").notNull(),
    /** `keyword`: the number texted STOP (or another opt-out keyword); `api`: a partner's `sms_opt_out: true`. */
    source: text("source", { enum: suppressionSources }).notNull(),
    /** The inbound message that asked for it (`keyword`); null for `api`. */
    messageId: text("message_id"),
  },
  (t) => [primaryKey({ columns: [t.agencyId, t.number] })],
);

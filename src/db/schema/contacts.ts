import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

/**
 * Contacts. Email is stored lower-cased and phone in E.164 so that the partial unique
 * indexes enforce "one live contact per email / phone" even under concurrent creates.
 */
export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email"),
    phone: text("phone"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    source: text("source"),
    pathId: text("path_id"),
    customFields: text("custom_fields", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The partner's own id for the contact (docs/decisions/lists-and-bulk.md). */
    externalId: text("external_id"),
    /**
     * Whether the contact's phone number is suppressed (sms_suppressions): a copy of the number's
     * state, written in the batch of every change to it and of every insert or phone change here
     * (docs/decisions/sms-opt-out.md), so reading a contact reads no other table.
     */
    smsOptOut: integer("sms_opt_out", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: timestamp("deleted_at"),
  },
  (t) => [
    index("contacts_agency_created_idx").on(t.agencyId, t.deletedAt, t.createdAt, t.id),
    index("contacts_agency_source_idx").on(t.agencyId, t.source, t.deletedAt, t.createdAt, t.id),
    uniqueIndex("contacts_agency_email_live_unique")
      .on(t.agencyId, t.email)
      .where(sql.raw("deleted_at IS NULL AND email IS NOT NULL")),
    uniqueIndex("contacts_agency_phone_live_unique")
      .on(t.agencyId, t.phone)
      .where(sql.raw("deleted_at IS NULL AND phone IS NOT NULL")),
    // Every contact holding a number, deleted ones too: an opt-out's change reaches all of them.
    index("contacts_agency_phone_idx").on(t.agencyId, t.phone).where(sql.raw("phone IS NOT NULL")),
    uniqueIndex("contacts_agency_external_id_live_unique")
      .on(t.agencyId, t.externalId)
      .where(sql.raw("deleted_at IS NULL AND external_id IS NOT NULL")),
  ],
);

/** Tags are mirrored here so that tag filters and tag counts use an index. */
export const contactTags = sqliteTable(
  "contact_tags",
  {
    contactId: text("contact_id")
      .notNull()
      .references(() => contacts.id),
    agencyId: text("agency_id").notNull(),
    tag: text("tag").notNull(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.tag] }), index("contact_tags_agency_tag_idx").on(t.agencyId, t.tag)],
);

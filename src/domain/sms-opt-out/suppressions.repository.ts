import { and, eq, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts, messages, smsSuppressions } from "@/db/schema";
import { eventsForEachRow } from "@/domain/events/events";
import { nowIso } from "@/lib/time";

/**
 * Suppressed phone numbers (docs/decisions/sms-opt-out.md): an opt-out belongs to the number, per
 * agency, and every contact holding the number shows it in `sms_opt_out`. Each change here is a
 * list of statements for the caller's batch, so the change, the contacts that show it and their
 * `contact.updated` events commit together or not at all.
 */

/**
 * Whether the agency's `number` (a value, or a column of the statement it is part of) is
 * suppressed, as SQL (1 or 0), evaluated where the batch has got to: what a contact row inserted
 * or given that phone stores in `sms_opt_out`. No number is never suppressed.
 */
export const numberSuppressed = (agencyId: string, number: string | SQL | null): SQL =>
  number === null
    ? sql`0`
    : sql`EXISTS (SELECT 1 FROM ${smsSuppressions} WHERE ${smsSuppressions.agencyId} = ${agencyId} AND ${smsSuppressions.number} = ${number})`;

/** Whether the agency may not text `number` now. */
export const isSuppressed = async (db: Db, agencyId: string, number: string) =>
  (await db
    .select({ number: smsSuppressions.number })
    .from(smsSuppressions)
    .where(and(eq(smsSuppressions.agencyId, agencyId), eq(smsSuppressions.number, number)))
    .get()) !== undefined;

/** Only if the message `messageId` exists: written earlier in the same batch, it is absent when the provider sent the text again. */
const messageStored = (agencyId: string, messageId: string) =>
  sql`EXISTS (SELECT 1 FROM ${messages} WHERE ${messages.id} = ${messageId} AND ${messages.agencyId} = ${agencyId})`;

/** Only if the contact is live: a PATCH of a contact deleted meanwhile is a 404 that changes nothing. */
const contactLive = (agencyId: string, contactId: string) =>
  sql`EXISTS (SELECT 1 FROM ${contacts} WHERE ${contacts.id} = ${contactId} AND ${contacts.agencyId} = ${agencyId} AND ${contacts.deletedAt} IS NULL)`;

/**
 * The statements that make every contact of the agency holding `number` (live or soft-deleted)
 * show the number's state as the batch left it, each contact that changes with its
 * `contact.updated` event, in that order. `exceptContactId`: a contact the caller's own write
 * (and its event) covers, later in the batch.
 */
function showNumberState(db: Db, agencyId: string, number: string, exceptContactId?: string) {
  const at = nowIso();
  const state = numberSuppressed(agencyId, number);
  const differs = and(
    eq(contacts.agencyId, agencyId),
    eq(contacts.phone, number),
    sql`${contacts.smsOptOut} <> ${state}`,
    exceptContactId === undefined ? undefined : ne(contacts.id, exceptContactId),
  );
  return [
    eventsForEachRow(db, { agencyId, type: "contact.updated", objectType: "contact", table: contacts, where: differs, set: { smsOptOut: state, updatedAt: sql`${at}` }, at }),
    db.update(contacts).set({ smsOptOut: state, updatedAt: at }).where(differs),
  ] as const;
}

/**
 * What asks for a suppression: a text (`keyword`), or the partner's `sms_opt_out: true` on a
 * contact (`api`), whose own update follows later in the batch.
 */
export type SuppressionCause = { source: "keyword"; messageId: string } | { source: "api"; contactId: string };

/**
 * The statements that suppress `number` for the agency: a number already suppressed keeps its
 * first date and cause. A keyword's suppression is written only with its message, stored earlier
 * in the batch (a text the provider sends again changes nothing); the partner's only while its
 * contact is live, and that contact is left to its own update and event.
 */
export function suppressNumber(db: Db, agencyId: string, number: string, cause: SuppressionCause) {
  const messageId = cause.source === "keyword" ? cause.messageId : null;
  // SQLite needs a WHERE on an INSERT ... SELECT with ON CONFLICT (https://sqlite.org/lang_upsert.html, parsing ambiguity).
  const when = cause.source === "keyword" ? messageStored(agencyId, cause.messageId) : contactLive(agencyId, cause.contactId);
  return [
    db
      .insert(smsSuppressions)
      .select(sql`SELECT ${agencyId}, ${number}, ${nowIso()}, ${cause.source}, ${messageId} WHERE ${when}`)
      .onConflictDoNothing(),
    ...showNumberState(db, agencyId, number, cause.source === "api" ? cause.contactId : undefined),
  ] as const;
}

/** The statements that lift the number's suppression, asked by the text `messageId` (START) stored earlier in the batch. */
export const liftNumber = (db: Db, agencyId: string, number: string, messageId: string) =>
  [
    db
      .delete(smsSuppressions)
      .where(and(eq(smsSuppressions.agencyId, agencyId), eq(smsSuppressions.number, number), messageStored(agencyId, messageId))),
    ...showNumberState(db, agencyId, number),
  ] as const;

import { and, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { contacts } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { contactEvent, liveContactWhere, type ContactRow } from "@/domain/contacts/contacts.repository";
import { MAX_NAME_LENGTH } from "@/domain/contacts/contacts.rules";
import { voiceMessages, type CallRequest } from "./voice-ai.rules";

export interface CallContact {
  contactId: string | null;
  contactName: string | null;
}

const fullName = (c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`.trim();

/**
 * The live contact of the agency with this phone. `phone IS NOT NULL` repeats a term of the
 * partial unique index `contacts_agency_phone_live_unique` (agency, phone) WHERE deleted_at
 * IS NULL AND phone IS NOT NULL, so SQLite can prove the index applies: one index entry,
 * however many contacts the agency has.
 */
const liveWithPhone = (agencyId: string, phone: string) =>
  and(eq(contacts.agencyId, agencyId), eq(contacts.phone, phone), isNull(contacts.deletedAt), isNotNull(contacts.phone));

/**
 * The one query `planCallContact` needs, for the request's read batch: the contact named by
 * `contact_uuid`, else the live contact that already has the phone.
 */
export const callContactQuery = (db: Db, agencyId: string, body: CallRequest & { phone: string }) =>
  db
    .select()
    .from(contacts)
    .where(body.contact_uuid ? liveContactWhere(agencyId, body.contact_uuid) : liveWithPhone(agencyId, body.phone));

/**
 * `contact_name` with two or more words gives a first name and a last name (the rest), when
 * each fits a contact's name (MAX_NAME_LENGTH, as `POST /contacts` allows).
 */
function namesFrom(body: CallRequest): { firstName: string; lastName: string } | null {
  if (body.first_name && body.last_name) return { firstName: body.first_name, lastName: body.last_name };
  const words = body.contact_name?.split(/\s+/).filter(Boolean) ?? [];
  if (words.length < 2) return null;
  const names = { firstName: words[0]!, lastName: words.slice(1).join(" ") };
  return names.firstName.length <= MAX_NAME_LENGTH && names.lastName.length <= MAX_NAME_LENGTH ? names : null;
}

export type ContactPlan =
  | { kind: "ready"; contact: CallContact }
  | { kind: "create"; firstName: string; lastName: string; contactName: string };

/**
 * The contact a call is linked to, decided before anything is written, from the row of
 * `callContactQuery`:
 * - `contact_uuid`: that live contact of the agency (else 400 `Unknown contact_uuid`);
 * - otherwise the live contact that already has this phone number, if any (reused, never a 409);
 * - otherwise a new contact from `first_name` + `last_name` (or a `contact_name` of two or more
 *   words, each name within a contact's limit),
 *   with the call's phone and source `voice-ai` (created by the statements of `callContactWrite`);
 * - otherwise none: the call carries only `contact_name`.
 * `contact_name` wins as the name the agent uses; it defaults to the contact's full name.
 */
export function planCallContact(body: CallRequest & { phone: string }, found: ContactRow | undefined): ContactPlan {
  const givenName = body.contact_name ?? (body.first_name && body.last_name ? `${body.first_name} ${body.last_name}` : null);
  if (body.contact_uuid) {
    if (!found) throw badRequest(voiceMessages.unknownContact);
    return { kind: "ready", contact: { contactId: found.id, contactName: givenName ?? fullName(found) } };
  }
  if (found) return { kind: "ready", contact: { contactId: found.id, contactName: givenName ?? fullName(found) } };
  const names = namesFrom(body);
  if (!names) return { kind: "ready", contact: { contactId: null, contactName: givenName } };
  // Names come from first_name + last_name or from contact_name, so givenName is set.
  return { kind: "create", ...names, contactName: givenName ?? fullName(names) };
}

/**
 * What the write batch does for the planned contact: for a new contact, an INSERT that yields
 * to a live contact created with this phone in the meantime (the partial unique index decides;
 * ON CONFLICT DO NOTHING) with its `contact.created` event (written only if the INSERT was),
 * and the call's `contact_id` as a subquery for whichever live contact holds the phone once
 * that INSERT ran, in the same batch. Tags are empty, so there is nothing to mirror into
 * contact_tags.
 */
export function callContactWrite(db: Db, agencyId: string, phone: string, plan: ContactPlan, now: string) {
  if (plan.kind === "ready") {
    return { writes: [] as BatchItem<"sqlite">[], contactId: plan.contact.contactId as string | SQL | null, contactName: plan.contact.contactName };
  }
  const row: ContactRow = {
    id: newId(),
    agencyId,
    firstName: plan.firstName,
    lastName: plan.lastName,
    email: null,
    phone,
    tags: [],
    source: "voice-ai",
    pathId: null,
    customFields: {},
    externalId: null,
    smsOptOut: false,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  return {
    writes: [
      db.insert(contacts).values(row).onConflictDoNothing(),
      contactEvent(db, agencyId, row.id, "contact.created", { ifChanged: true }),
    ] as BatchItem<"sqlite">[],
    contactId: sql`(${db.select({ id: contacts.id }).from(contacts).where(liveWithPhone(agencyId, phone))})`,
    contactName: plan.contactName,
  };
}

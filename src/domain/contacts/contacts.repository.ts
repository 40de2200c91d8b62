import { and, asc, count, desc, eq, exists, getTableColumns, isNotNull, isNull, ne, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { listOrder, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { contacts, contactTags } from "@/db/schema";
import { conflict, type ApiError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { eventStatement, eventsOfRows, type EventType } from "@/domain/events/events";
import { nowIso } from "@/lib/time";
import type { CustomFieldsInput } from "@/domain/fields/custom-fields";
import { isUniqueViolation } from "@/lib/db-errors";
import { maintainedCount } from "@/db/record-counts";
import { compiledQuery, countAll, readPage, readRows, rowDecoder } from "@/db/compiled-query";
import { contactSearchMatch, contactsFts } from "./contact-search";
import { contactKeys, MAX_LISTED_SOURCES, MAX_LISTED_TAGS, contactMessages, type ContactKey } from "./contacts.rules";
import { commit } from "@/db/outbox";
import { numberSuppressed, suppressNumber } from "@/domain/sms-opt-out/suppressions.repository";
import { jsonList } from "@/db/json-list";

export type ContactRow = typeof contacts.$inferSelect;

export const toPublicContact = (c: ContactRow) => ({
  contact_uuid: c.id,
  first_name: c.firstName,
  last_name: c.lastName,
  email: c.email,
  phone: c.phone,
  tags: c.tags,
  source: c.source,
  path_uuid: c.pathId,
  custom_fields: c.customFields,
  external_id: c.externalId,
  sms_opt_out: c.smsOptOut,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  deleted_at: c.deletedAt,
});

// A value, or a placeholder of a compiled query (whose caller lower-cases the id it binds).
type Operand = string | Placeholder;
const contactIdOf = (contactId: Operand) => (typeof contactId === "string" ? contactId.toLowerCase() : contactId);
const ofAgency = (agencyId: Operand, contactId: Operand) => and(eq(contacts.id, contactIdOf(contactId)), eq(contacts.agencyId, agencyId));
/** A live (not soft-deleted) contact of the agency, by id (primary key). */
export const liveContactWhere = (agencyId: Operand, contactId: Operand) => and(ofAgency(agencyId, contactId), isNull(contacts.deletedAt));

/**
 * Statements that make contact_tags mirror contacts.tags for one contact. They copy from the
 * row itself (json_each), so inside a batch they stay right even when a conditional update
 * before them changed nothing.
 */
const syncTags = (db: Db, agencyId: string, contactId: string) =>
  [
    // By contact id alone: the primary key (contact_id, tag) serves it, where adding agency_id
    // let SQLite pick the (agency_id, tag) index and read every tag of the agency.
    db.delete(contactTags).where(eq(contactTags.contactId, contactId)),
    db
      .insert(contactTags)
      .select(
        sql`SELECT c.id, c.agency_id, j.value FROM contacts c, json_each(c.tags) j WHERE c.id = ${contactId} AND c.agency_id = ${agencyId}`,
      )
      .onConflictDoNothing(),
  ] as const;

export const keyColumn = { external_id: contacts.externalId, email: contacts.email, phone: contacts.phone } as const;
export const keyProperty = { external_id: "externalId", email: "email", phone: "phone" } as const;

/**
 * The live contact holding this external_id, else this email, else this phone (each unique
 * among live contacts), other than `exceptId`; `matched` says which value it holds.
 */
async function findLiveHolder(
  db: Db,
  agencyId: string,
  by: { externalId?: string | null; email?: string | null; phone?: string | null },
  exceptId?: string,
): Promise<{ contact: ContactRow; matched: ContactKey } | undefined> {
  const holding = (column: (typeof keyColumn)[ContactKey], value: string) =>
    db
      .select()
      .from(contacts)
      .where(and(eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt), eq(column, value), exceptId ? ne(contacts.id, exceptId) : undefined))
      .get();
  for (const key of contactKeys) {
    const value = by[keyProperty[key]];
    if (!value) continue;
    const contact = await holding(keyColumn[key], value);
    if (contact) return { contact, matched: key };
  }
  return undefined;
}

/** The 409 of a value another live contact holds, naming that contact. */
export const duplicateMessage = (key: ContactKey, holderId: string) =>
  key === "email" ? contactMessages.duplicateEmail(holderId) : key === "phone" ? contactMessages.duplicatePhone(holderId) : contactMessages.duplicateExternalId(holderId);

/**
 * The live contact a booking should reuse: the one with this email, else the one with this
 * phone (both are unique among live contacts).
 */
export const findLiveContact = async (db: Db, agencyId: string, by: { email?: string | null; phone?: string | null }) =>
  (await findLiveHolder(db, agencyId, by))?.contact;

/**
 * The unique indexes said "taken" (a concurrent create may have won); find who holds the
 * email or phone so the 409 can name it.
 */
export async function duplicateError(
  db: Db,
  agencyId: string,
  values: { externalId?: string | null; email?: string | null; phone?: string | null },
  exceptId?: string,
): Promise<ApiError> {
  const holder = await findLiveHolder(db, agencyId, values, exceptId);
  if (holder) return conflict(duplicateMessage(holder.matched, holder.contact.id));
  return conflict("A contact with this external_id, email or phone already exists");
}

const decodeContacts = rowDecoder(contacts);
const liveContact = compiledQuery<{ agencyId: string; contactId: string }>((qb) =>
  qb.select().from(contacts).where(liveContactWhere(sql.placeholder("agencyId"), sql.placeholder("contactId"))),
);

export const getLiveContact = async (db: Db, agencyId: string, contactId: string): Promise<ContactRow | undefined> =>
  decodeContacts(await readRows(db, liveContact({ agencyId, contactId: contactId.toLowerCase() })))[0];

/** Any contact of the agency, live or soft-deleted. */
export const getAnyContact = (db: Db, agencyId: string, contactId: string) =>
  db.select().from(contacts).where(ofAgency(agencyId, contactId)).get();

export interface ContactFilters {
  q?: string;
  tag?: string;
  source?: string;
  externalId?: string;
  deleted: boolean;
}

type ContactListShape = `${"q" | ""}/${"tag" | ""}/${"source" | ""}/${"external" | ""}/${"live" | "deleted"}`;
/** A list's shape and whether its page starts after a cursor. */
type ContactPageShape = `${ContactListShape}/${"after" | ""}`;

/** Newest first, the id on ties. */
export const contactOrder = listOrder("desc", { createdAt: contacts.createdAt, id: contacts.id });
type ContactListValues = { agencyId: string; match?: string; tag?: string; source?: string; externalId?: string };

/**
 * One page of the agency's contacts and the number of matches, for one shape of filters. Each
 * shape is driven from its index, never from a walk over the agency's contacts:
 * - q: the FTS5 index (contacts_fts, see contact-search.ts), joined back by rowid;
 * - tag without q: contact_tags by (agency_id, tag);
 * - neither: contacts by (agency_id, deleted_at, created_at), the total from record_counts.
 * CROSS JOIN makes SQLite keep the index on the left as the outer loop
 * (https://sqlite.org/optoverview.html#manual_control_of_query_plans_using_cross_join): with
 * `id IN (subquery)` instead it preferred walking contacts_agency_created_idx in order and
 * probing the subquery's results, which reads every contact of the agency.
 */
function contactList(qb: QueryBuilder, shape: ContactPageShape) {
  const [q, tag, source, external, state, after] = shape.split("/");
  const where = and(
    eq(contacts.agencyId, sql.placeholder("agencyId")),
    state === "deleted" ? isNotNull(contacts.deletedAt) : isNull(contacts.deletedAt),
    source ? eq(contacts.source, sql.placeholder("source")) : undefined,
    // Live contacts by external_id: one probe of its partial unique index.
    external ? eq(contacts.externalId, sql.placeholder("externalId")) : undefined,
  );
  // The index the query is driven from, and how its rows meet contacts.
  let driver: { table: typeof contactsFts | typeof contactTags; where: SQL | undefined } | undefined;
  if (q) {
    driver = {
      table: contactsFts,
      where: and(
        sql`${contactsFts} MATCH ${sql.placeholder("match")}`,
        eq(sql`${contacts}.rowid`, contactsFts.rowid),
        // A tag as well: one probe of contact_tags' primary key (contact_id, tag) per match.
        tag
          ? exists(qb.select({ one: sql`1` }).from(contactTags).where(and(eq(contactTags.contactId, contacts.id), eq(contactTags.tag, sql.placeholder("tag")))))
          : undefined,
      ),
    };
  } else if (tag) {
    driver = {
      table: contactTags,
      where: and(eq(contactTags.agencyId, sql.placeholder("agencyId")), eq(contactTags.tag, sql.placeholder("tag")), eq(contacts.id, contactTags.contactId)),
    };
  }
  const columns = getTableColumns(contacts);
  const rows = (more?: SQL) =>
    driver
      ? qb.select(columns).from(driver.table).crossJoin(contacts).where(and(driver.where, where, more))
      : qb.select(columns).from(contacts).where(and(where, more));
  return {
    page: rows(after ? contactOrder.placeholders() : undefined)
      .orderBy(...contactOrder.orderBy)
      .limit(sql.placeholder("read"))
      .offset(sql.placeholder("offset")),
    // Without filters the total is the maintained count (record_counts), not a count of the agency.
    total:
      !q && !tag && !source && !external
        ? maintainedCount(qb, state === "deleted" ? "contacts.deleted" : "contacts.live")
        : driver
          ? qb.select({ total: countAll() }).from(driver.table).crossJoin(contacts).where(and(driver.where, where))
          : qb.select({ total: countAll() }).from(contacts).where(where),
  };
}
const contactPage = compiledQuery<ContactListValues & { read: number; offset: number }, ContactPageShape>((qb, shape) => contactList(qb, shape).page);
const contactCount = compiledQuery<ContactListValues, ContactPageShape>((qb, shape) => contactList(qb, shape).total);

/** The page and count queries of a list (the count a number when the page knows it), or undefined when q cannot match anything. */
export function listContactsQueries(agencyId: string, filters: ContactFilters, page: PageWindow) {
  const match = filters.q ? contactSearchMatch(agencyId, filters.q) : undefined;
  if (filters.q && match === undefined) return undefined;
  const shape: ContactListShape = `${match !== undefined ? "q" : ""}/${filters.tag !== undefined ? "tag" : ""}/${filters.source !== undefined ? "source" : ""}/${filters.externalId !== undefined ? "external" : ""}/${filters.deleted ? "deleted" : "live"}`;
  const values = { agencyId, match, tag: filters.tag, source: filters.source, externalId: filters.externalId };
  const after = page.after ? contactOrder.bind(page.after) : {};
  return {
    page: contactPage({ ...values, ...after, read: page.read, offset: page.offset }, `${shape}/${page.after ? "after" : ""}`),
    total: page.total ?? contactCount(values, `${shape}/`),
  };
}

export async function listContacts(db: Db, agencyId: string, filters: ContactFilters, page: PageWindow) {
  // A q without a letter or digit matches nothing: answer without reading anything.
  const queries = listContactsQueries(agencyId, filters, page);
  if (!queries) return { rows: [], total: 0 };
  return readPage(db, decodeContacts, queries.page, queries.total);
}

/** The event of a change to one contact, for the change's batch (see eventStatement). */
export const contactEvent = (db: Db, agencyId: string, contactId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "contact", table: contacts, where: ofAgency(agencyId, contactId), ...options });

export interface NewContact {
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  tags: string[];
  source: string | null;
  pathId: string | null;
  customFields: Record<string, unknown>;
  externalId: string | null;
}

/**
 * One live contact per email and per phone is enforced by the partial unique indexes, so of
 * two concurrent creates with one email exactly one insert succeeds; the loser is a 409.
 */
export async function createContact(db: Db, agencyId: string, input: NewContact): Promise<ContactRow> {
  const row = newContactRow(agencyId, input);
  try {
    const [inserted] = await commit(db, contactInsert(db, row));
    return { ...row, smsOptOut: (inserted as { smsOptOut: boolean }[])[0]?.smsOptOut ?? false };
  } catch (error) {
    if (isUniqueViolation(error)) throw await duplicateError(db, agencyId, input);
    throw error;
  }
}

/** A new contact's row; its `smsOptOut` is decided by the insert (contactInsert), from its number's state. */
export const newContactRow = (agencyId: string, input: NewContact): ContactRow => {
  const now = nowIso();
  return { id: newId(), agencyId, ...input, smsOptOut: false, createdAt: now, updatedAt: now, deletedAt: null };
};

/**
 * The statements that create a contact: its row (showing whether its phone number is suppressed,
 * read in the same statement, so a re-created contact is opted out as its number is), its tags'
 * mirror and its `contact.created` event. The insert returns the stored `smsOptOut`.
 */
export const contactInsert = (db: Db, row: ContactRow) =>
  [
    db
      .insert(contacts)
      .values({ ...row, smsOptOut: numberSuppressed(row.agencyId, row.phone) })
      .returning({ smsOptOut: contacts.smsOptOut }),
    ...(row.tags.length > 0 ? syncTags(db, row.agencyId, row.id).slice(1) : []),
    contactEvent(db, row.agencyId, row.id, "contact.created"),
  ] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];


const contactColumns = Object.entries(getTableColumns(contacts));
/** A row's column values as the driver stores them, in the table's column order. */
const driverValues = (row: ContactRow) =>
  contactColumns.map(([key, column]) => {
    const value = row[key as keyof ContactRow];
    return value === null || value === undefined ? null : column.mapToDriverValue(value);
  });
const phoneAt = contactColumns.findIndex(([key]) => key === "phone");

/**
 * The statements that create many contacts, in the order given, as `contactInsert` does one but
 * in three statements whatever their number (docs/decisions/lists-and-bulk.md): the rows, read
 * from one JSON parameter (each row's `smsOptOut` from its number's state, in the same
 * statement), their tags' mirror, and a `contact.created` event each. The insert fires the
 * same triggers per row as a single insert (counts, search index, the move's fence).
 */
export function contactInserts(db: Db, agencyId: string, rows: ContactRow[]) {
  const values = sql.join(
    contactColumns.map(([key], i) =>
      key === "smsOptOut" ? numberSuppressed(agencyId, sql`json_extract(j.value, ${`$[${phoneAt}]`})`) : sql`json_extract(j.value, ${`$[${i}]`})`,
    ),
    sql`, `,
  );
  const tags = rows.flatMap((row) => [...new Set(row.tags)].map((tag) => [row.id, tag]));
  return [
    // json_each walks the array in order: the rows are inserted in the items' order.
    db.insert(contacts).select(sql`SELECT ${values} FROM json_each(${jsonList(rows.map(driverValues))}) AS j`),
    // The tags' mirror from the same values (each row's tags as given, one pair a tag), not read back from contacts.
    // `WHERE true`: without it SQLite would read the upsert's ON as a join's (https://sqlite.org/lang_upsert.html#parsing_ambiguity).
    ...(tags.length > 0
      ? [
          db
            .insert(contactTags)
            .select(sql`SELECT json_extract(j.value, '$[0]'), ${agencyId}, json_extract(j.value, '$[1]') FROM json_each(${jsonList(tags)}) AS j WHERE true`)
            .onConflictDoNothing(),
        ]
      : []),
    ...eventsOfRows(db, { agencyId, type: "contact.created", objectType: "contact", table: contacts, ids: rows.map((row) => row.id), at: nowIso() }),
  ] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
}

export interface ContactPatch {
  firstName?: string;
  lastName?: string;
  email?: string | null;
  phone?: string | null;
  tags?: string[];
  source?: string | null;
  pathId?: string | null;
  /** Merged into the stored values; `null` removes a key. */
  customFields?: CustomFieldsInput;
  externalId?: string | null;
  /**
   * `sms_opt_out: true`: suppresses this number (the contact's phone as the patch leaves it) in
   * the patch's batch. Nothing lifts an opt-out but the person (docs/decisions/sms-opt-out.md).
   */
  optOutNumber?: string;
}

/**
 * Updates a live contact. custom_fields are merged in SQL (json_patch: RFC 7396 merge patch,
 * where null removes a key), so two concurrent PATCHes of different keys both stick.
 * Returns undefined when the contact is not live (any more).
 */
export async function updateContact(db: Db, agencyId: string, contactId: string, patch: ContactPatch): Promise<ContactRow | undefined> {
  // The suppression first: the contact's own update then shows it, in its one `contact.updated` event.
  const suppression = patch.optOutNumber === undefined ? [] : suppressNumber(db, agencyId, patch.optOutNumber, { source: "api", contactId });
  const [update, ...rest] = contactUpdate(db, agencyId, contactId, patch);
  try {
    const results = await commit(db, [...suppression, update.returning(), ...rest] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    return (results[suppression.length] as ContactRow[])[0];
  } catch (error) {
    if (isUniqueViolation(error)) throw await duplicateError(db, agencyId, patch, contactId);
    throw error;
  }
}

/** The statements of a PATCH of a live contact: the update, its `contact.updated` event (when it changed) and the tags' mirror. */
export function contactUpdate(db: Db, agencyId: string, contactId: string, patch: ContactPatch) {
  const { customFields, optOutNumber, ...columns } = patch;
  const set = {
    ...columns,
    ...(customFields !== undefined ? { customFields: sql`json_patch(${contacts.customFields}, ${JSON.stringify(customFields)})` } : {}),
    // A new phone brings its number's opt-out state with it (docs/decisions/sms-opt-out.md).
    ...(columns.phone !== undefined || optOutNumber !== undefined
      ? { smsOptOut: numberSuppressed(agencyId, columns.phone !== undefined ? columns.phone : sql`${contacts.phone}`) }
      : {}),
    updatedAt: nowIso(),
  };
  return [
    db.update(contacts).set(set).where(liveContactWhere(agencyId, contactId)),
    contactEvent(db, agencyId, contactId, "contact.updated", { ifChanged: true }),
    ...(patch.tags === undefined ? [] : syncTags(db, agencyId, contactId)),
  ] as const;
}

export async function softDeleteContact(db: Db, agencyId: string, contactId: string) {
  const now = nowIso();
  return writeWithEvent(
    db,
    db.update(contacts).set({ deletedAt: now, updatedAt: now }).where(liveContactWhere(agencyId, contactId)).returning(),
    contactEvent(db, agencyId, contactId, "contact.deleted", { ifChanged: true }),
  );
}

/**
 * Brings a soft-deleted contact back. If a live contact has taken its email or phone in the
 * meantime, the unique indexes refuse and the 409 names that contact. Returns undefined when
 * the contact was not deleted (any more).
 */
export async function restoreContact(db: Db, agencyId: string, contact: ContactRow) {
  try {
    return await writeWithEvent(
      db,
      db
        .update(contacts)
        .set({ deletedAt: null, updatedAt: nowIso() })
        .where(and(ofAgency(agencyId, contact.id), isNotNull(contacts.deletedAt)))
        .returning(),
      contactEvent(db, agencyId, contact.id, "contact.restored", { ifChanged: true }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw await duplicateError(db, agencyId, contact, contact.id);
    throw error;
  }
}

/** Distinct tags over live contacts, most used first: the MAX_LISTED_TAGS most used. */
export const tagCounts = (db: Db, agencyId: string) =>
  db
    .select({ tag: contactTags.tag, count: count() })
    .from(contactTags)
    .innerJoin(contacts, eq(contacts.id, contactTags.contactId))
    .where(and(eq(contactTags.agencyId, agencyId), eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt)))
    .groupBy(contactTags.tag)
    .orderBy(desc(count()), asc(contactTags.tag))
    .limit(MAX_LISTED_TAGS)
    .all();

/** Distinct sources over live contacts, most used first: the MAX_LISTED_SOURCES most used. */
export const sourceCounts = async (db: Db, agencyId: string) => {
  const rows = await db
    .select({ source: contacts.source, count: count() })
    .from(contacts)
    .where(and(eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt), isNotNull(contacts.source)))
    .groupBy(contacts.source)
    .orderBy(desc(count()), asc(contacts.source))
    .limit(MAX_LISTED_SOURCES)
    .all();
  return rows.flatMap((r) => (r.source === null ? [] : [{ source: r.source, count: r.count }]));
};

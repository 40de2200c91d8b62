import { and, eq, inArray, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { contacts, fields, paths } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { ApiError } from "@/lib/errors";
import { checkCustomFields, mergeCustomFields, type CustomFieldsInput } from "@/domain/fields/custom-fields";
import type { FieldRow } from "@/domain/fields/fields.repository";
import { pathEventInsert } from "@/domain/paths/path-events.repository";
import { UNKNOWN_PATH_MESSAGE } from "@/domain/paths/path-lookup";
import * as repo from "./contacts.repository";
import { contactKeys, contactMessages, type bulkStatuses, type ContactKey } from "./contacts.rules";
import { commit } from "@/db/outbox";

/**
 * `POST /contacts/bulk` (docs/decisions/lists-and-bulk.md): up to 100 contacts upserted as if each
 * were sent alone, in order, to `POST /contacts` or `PATCH /contacts/{contact_uuid}`, with the
 * same checks and messages, but in two D1 round trips: one batch reads every contact the items
 * can meet (by external_id, email and phone), the agency's field definitions and the paths
 * named; the items are then decided in memory, each seeing the ones before it; one batch
 * writes every change with its event. Should a concurrent write take a value in between (the
 * unique indexes refuse the batch, which then wrote nothing), the items go again one at a time.
 */

/** One contact of a bulk upsert, as the route's schema (`BulkContactItem`) parsed it. */
export interface ContactUpsert {
  first_name: string;
  last_name: string;
  email?: string | null;
  phone?: string | null;
  tags?: string[];
  source?: string | null;
  path_uuid?: string | null;
  custom_fields?: Record<string, unknown>;
  external_id?: string | null;
  match_on?: ContactKey;
}

/** An item at its position in the request: parsed, or the message that says why it is invalid. */
export type BulkItem = { index: number; item: ContactUpsert } | { index: number; invalid: string };

type Item = ContactUpsert;
type Status = (typeof bulkStatuses)[number];

export interface BulkResult {
  index: number;
  status: Status;
  contact_uuid: string | null;
  error: string | null;
  code: "validation_error" | "conflict" | null;
}

/** Values in one IN list: D1 binds at most 100 parameters per statement, and one is the agency. */
const IN_LIST = 99;

const chunks = <T>(values: T[]) => Array.from({ length: Math.ceil(values.length / IN_LIST) }, (_, i) => values.slice(i * IN_LIST, (i + 1) * IN_LIST));

const failed = (index: number, code: BulkResult["code"], error: string): BulkResult => ({ index, status: "error", contact_uuid: null, error, code });
const done = (index: number, status: Status, contactId: string): BulkResult => ({ index, status, contact_uuid: contactId, error: null, code: null });

/** An item's value of a unique key, as stored (emails lower-cased and phones in E.164 by the schema). */
const keyOf = (item: Item, key: ContactKey) => item[key] ?? undefined;

/** What the items can meet in the database: the live contacts holding their keys, the fields, the paths. */
async function readState(db: Db, agencyId: string, items: Item[]) {
  const reads: BatchItem<"sqlite">[] = [];
  const live = and(eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt));
  for (const key of contactKeys) {
    const values = [...new Set(items.map((item) => keyOf(item, key)).filter((v): v is string => typeof v === "string"))];
    for (const chunk of chunks(values)) reads.push(db.select().from(contacts).where(and(live, inArray(repo.keyColumn[key], chunk))));
  }
  const contactReads = reads.length;
  const pathIds = [...new Set(items.map((item) => item.path_uuid).filter((v): v is string => typeof v === "string"))];
  const pathChunks = chunks(pathIds);
  for (const chunk of pathChunks) {
    reads.push(db.select({ id: paths.id }).from(paths).where(and(eq(paths.agencyId, agencyId), isNull(paths.deletedAt), inArray(paths.id, chunk))));
  }
  const needsFields = items.some((item) => item.custom_fields && Object.keys(item.custom_fields).length > 0);
  if (needsFields) reads.push(db.select().from(fields).where(eq(fields.agencyId, agencyId)));
  const results = reads.length > 0 ? ((await commit(db, reads as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[][]) : [];
  return {
    contacts: results.slice(0, contactReads).flat() as repo.ContactRow[],
    paths: new Set((results.slice(contactReads, contactReads + pathChunks.length).flat() as { id: string }[]).map((p) => p.id)),
    fields: (needsFields ? results[results.length - 1] : []) as FieldRow[],
  };
}

/** Live contacts by each unique value, kept current as the items are decided. */
class Holders {
  private readonly byKey = new Map<ContactKey, Map<string, repo.ContactRow>>(contactKeys.map((key) => [key, new Map()]));

  constructor(rows: repo.ContactRow[]) {
    for (const row of rows) this.add(row);
  }

  get(key: ContactKey, value: string | null | undefined) {
    return value ? this.byKey.get(key)!.get(value) : undefined;
  }

  add(row: repo.ContactRow) {
    for (const key of contactKeys) {
      const value = row[repo.keyProperty[key]];
      if (value) this.byKey.get(key)!.set(value, row);
    }
  }

  remove(row: repo.ContactRow) {
    for (const key of contactKeys) {
      const value = row[repo.keyProperty[key]];
      if (value && this.byKey.get(key)!.get(value) === row) this.byKey.get(key)!.delete(value);
    }
  }

  /** The first key (external_id, email, phone) whose value in `row` another live contact holds. */
  clash(row: repo.ContactRow): { key: ContactKey; holder: repo.ContactRow } | undefined {
    for (const key of contactKeys) {
      const holder = this.get(key, row[repo.keyProperty[key]]);
      if (holder && holder.id !== row.id) return { key, holder };
    }
    return undefined;
  }
}

/** JSON with sorted keys: two custom_fields objects are the same values whatever their key order. */
const canonical = (value: Record<string, unknown>) => JSON.stringify(Object.keys(value).sort().map((key) => [key, value[key]]));

const patchOf = (item: Item, customFields: CustomFieldsInput | undefined): repo.ContactPatch => ({
  firstName: item.first_name,
  lastName: item.last_name,
  email: item.email,
  phone: item.phone,
  tags: item.tags,
  source: item.source,
  pathId: item.path_uuid,
  customFields,
  externalId: item.external_id,
});

function changes(current: repo.ContactRow, next: repo.ContactRow) {
  return (
    current.firstName !== next.firstName ||
    current.lastName !== next.lastName ||
    current.email !== next.email ||
    current.phone !== next.phone ||
    current.source !== next.source ||
    current.pathId !== next.pathId ||
    current.externalId !== next.externalId ||
    JSON.stringify(current.tags) !== JSON.stringify(next.tags) ||
    canonical(current.customFields) !== canonical(next.customFields)
  );
}

/** Decides and writes `items`; the results are in the items' order. */
async function upsertOnce(db: Db, agencyId: string, items: BulkItem[]) {
  const results: BulkResult[] = [];
  const parsed: { index: number; item: Item }[] = [];
  for (const one of items) {
    if ("item" in one) parsed.push(one);
    else results[one.index] = failed(one.index, "validation_error", one.invalid);
  }
  const state = await readState(db, agencyId, parsed.map((p) => p.item));
  const holders = new Holders(state.contacts);
  const writes: BatchItem<"sqlite">[] = [];

  for (const { index, item } of parsed) {
    const matchOn = item.match_on ?? contactKeys.find((key) => keyOf(item, key) !== undefined);
    if (item.match_on && keyOf(item, item.match_on) === undefined) {
      results[index] = failed(index, "validation_error", contactMessages.matchOnMissing(item.match_on));
      continue;
    }
    if (item.path_uuid && !state.paths.has(item.path_uuid)) {
      results[index] = failed(index, "validation_error", UNKNOWN_PATH_MESSAGE);
      continue;
    }
    let customFields: CustomFieldsInput | undefined;
    try {
      customFields = item.custom_fields ? checkCustomFields(state.fields, item.custom_fields) : undefined;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      results[index] = failed(index, "validation_error", error.message);
      continue;
    }
    const current = matchOn ? holders.get(matchOn, keyOf(item, matchOn)) : undefined;
    const patch = patchOf(item, customFields);
    const next: repo.ContactRow = current
      ? {
          ...current,
          ...Object.fromEntries(Object.entries(patch).filter(([key, value]) => value !== undefined && key !== "customFields")),
          customFields: customFields ? mergeCustomFields(current.customFields, customFields) : current.customFields,
        }
      : repo.newContactRow(agencyId, {
          firstName: item.first_name,
          lastName: item.last_name,
          email: item.email ?? null,
          phone: item.phone ?? null,
          tags: item.tags ?? [],
          source: item.source ?? null,
          pathId: item.path_uuid ?? null,
          customFields: customFields ? mergeCustomFields({}, customFields) : {},
          externalId: item.external_id ?? null,
        });
    const clash = holders.clash(next);
    if (clash) {
      results[index] = failed(index, "conflict", repo.duplicateMessage(clash.key, clash.holder.id));
      continue;
    }
    if (current && !changes(current, next)) {
      results[index] = done(index, "unchanged", current.id);
      continue;
    }
    if (current) {
      holders.remove(current);
      writes.push(...repo.contactUpdate(db, agencyId, current.id, patch));
    } else {
      writes.push(...repo.contactInsert(db, next));
      if (next.pathId) writes.push(pathEventInsert(db, agencyId, { pathId: next.pathId, type: "lead", contactId: next.id }).insert);
    }
    holders.add(next);
    results[index] = done(index, current ? "updated" : "created", next.id);
  }
  if (writes.length > 0) await commit(db, writes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return results.filter(Boolean);
}

export async function upsertContacts(db: Db, agencyId: string, items: BulkItem[]): Promise<BulkResult[]> {
  try {
    return await upsertOnce(db, agencyId, items);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // A concurrent write took a value between the read and the write: one item at a time.
  const results: BulkResult[] = [];
  for (const one of items) {
    try {
      results.push(...(await upsertOnce(db, agencyId, [one])));
    } catch (error) {
      // Only a parsed item writes, so only a parsed item can clash.
      if (!isUniqueViolation(error) || !("item" in one)) throw error;
      const { item } = one;
      const holder = await repo.duplicateError(db, agencyId, { externalId: item.external_id, email: item.email, phone: item.phone });
      results.push(failed(one.index, "conflict", holder.message));
    }
  }
  return results;
}

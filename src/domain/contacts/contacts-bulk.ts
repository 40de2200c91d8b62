import { and, eq, getTableColumns, isNull, sql } from "drizzle-orm";
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
import { inJsonList, jsonList } from "@/db/json-list";

/**
 * `POST /contacts/bulk` (docs/decisions/lists-and-bulk.md): up to 100 contacts upserted as if each
 * were sent alone, in order, to `POST /contacts` or `PATCH /contacts/{contact_uuid}`, with the
 * same checks and messages, but in two D1 round trips: one batch reads every contact the items
 * can meet (by external_id, email and phone), the agency's field definitions and the paths
 * named; the items are then decided in memory, each seeing the ones before it; one batch
 * writes every change with its event, the new contacts of consecutive items three statements
 * whatever their number. Should a concurrent write take a value in between (the unique indexes
 * refuse the batch, which then wrote nothing), the whole request is read and decided again
 * against what that write left and written once more: two round trips more.
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

const failed = (index: number, code: BulkResult["code"], error: string): BulkResult => ({ index, status: "error", contact_uuid: null, error, code });
const done = (index: number, status: Status, contactId: string): BulkResult => ({ index, status, contact_uuid: contactId, error: null, code: null });

/** An item's value of a unique key, as stored (emails lower-cased and phones in E.164 by the schema). */
const keyOf = (item: Item, key: ContactKey) => item[key] ?? undefined;

const distinct = (values: (string | null | undefined)[]) => [...new Set(values.filter((v): v is string => typeof v === "string"))];

/**
 * What the items can meet in the database: the live contacts holding their keys, the fields, the
 * paths. Each key's values go in as one JSON list that json_each walks, CROSS JOIN keeping it the
 * outer loop, so each value is one probe of the key's partial unique index: with an IN list of
 * many values SQLite preferred walking the agency's index, reading every contact of the agency
 * (https://sqlite.org/optoverview.html#manual_control_of_query_plans_using_cross_join).
 */
async function readState(db: Db, agencyId: string, items: Item[]) {
  const reads: BatchItem<"sqlite">[] = [];
  for (const key of contactKeys) {
    const values = distinct(items.map((item) => keyOf(item, key)));
    if (values.length === 0) continue;
    reads.push(
      db
        .select(getTableColumns(contacts))
        .from(sql`json_each(${jsonList(values)}) AS j`)
        .crossJoin(contacts)
        .where(and(eq(contacts.agencyId, agencyId), isNull(contacts.deletedAt), eq(repo.keyColumn[key], sql`j.value`))),
    );
  }
  const contactReads = reads.length;
  const pathIds = distinct(items.map((item) => item.path_uuid));
  if (pathIds.length > 0) {
    reads.push(
      db
        .select({ id: paths.id })
        .from(paths)
        .where(and(eq(paths.agencyId, agencyId), isNull(paths.deletedAt), inJsonList(paths.id, pathIds))),
    );
  }
  const needsFields = items.some((item) => item.custom_fields && Object.keys(item.custom_fields).length > 0);
  if (needsFields) reads.push(db.select().from(fields).where(eq(fields.agencyId, agencyId)));
  const results = reads.length > 0 ? ((await commit(db, reads as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[][]) : [];
  // A contact holding two of the keys comes once per key: one object per contact.
  const byId = new Map((results.slice(0, contactReads).flat() as repo.ContactRow[]).map((row) => [row.id, row]));
  return {
    contacts: [...byId.values()],
    paths: new Set((pathIds.length > 0 ? (results[contactReads] as { id: string }[]) : []).map((p) => p.id)),
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

/** A write the items decided, in their order: a new contact, or the statements of an update. */
type Step = { insert: repo.ContactRow } | { update: readonly BatchItem<"sqlite">[] };

/** The items' results, in their order, and the writes they decided, against `state`. */
function decide(db: Db, agencyId: string, items: BulkItem[], state: Awaited<ReturnType<typeof readState>>) {
  const results: BulkResult[] = [];
  const parsed: { index: number; item: Item }[] = [];
  for (const one of items) {
    if ("item" in one) parsed.push(one);
    else results[one.index] = failed(one.index, "validation_error", one.invalid);
  }
  const holders = new Holders(state.contacts);
  const steps: Step[] = [];

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
      steps.push({ update: repo.contactUpdate(db, agencyId, current.id, patch) });
    } else {
      steps.push({ insert: next });
    }
    holders.add(next);
    results[index] = done(index, current ? "updated" : "created", next.id);
  }
  return { results: results.filter(Boolean), steps };
}

/**
 * The batch of the steps, in order: the new contacts of consecutive items together
 * (repo.contactInserts), each followed by the path's `lead` events, and each update's statements
 * where it comes. An update of a contact created earlier in the request then finds it written,
 * and a new contact taking a value an earlier update gave up finds it free.
 */
function writesOf(db: Db, agencyId: string, steps: Step[]) {
  const writes: BatchItem<"sqlite">[] = [];
  let run: repo.ContactRow[] = [];
  const flush = () => {
    if (run.length === 0) return;
    writes.push(...repo.contactInserts(db, agencyId, run));
    for (const row of run) {
      if (row.pathId) writes.push(pathEventInsert(db, agencyId, { pathId: row.pathId, type: "lead", contactId: row.id }).insert);
    }
    run = [];
  };
  for (const step of steps) {
    if ("insert" in step) {
      run.push(step.insert);
    } else {
      flush();
      writes.push(...step.update);
    }
  }
  flush();
  return writes;
}

/** Reads, decides and writes `items` (two round trips; one when nothing changes); the results are in the items' order. */
async function upsertOnce(db: Db, agencyId: string, items: BulkItem[]) {
  const state = await readState(
    db,
    agencyId,
    items.flatMap((one) => ("item" in one ? [one.item] : [])),
  );
  const { results, steps } = decide(db, agencyId, items, state);
  const writes = writesOf(db, agencyId, steps);
  if (writes.length > 0) await commit(db, writes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return results;
}

/**
 * Times the whole request is read, decided and written again after a clash before the items go
 * one at a time: each time means another writer committed a clashing value in the moment between
 * this request's read and its write, so a second time is already rare.
 */
const WHOLE_TRIES = 3;

export async function upsertContacts(db: Db, agencyId: string, items: BulkItem[]): Promise<BulkResult[]> {
  for (let attempt = 1; attempt <= WHOLE_TRIES; attempt++) {
    try {
      return await upsertOnce(db, agencyId, items);
    } catch (error) {
      // The unique indexes refused the batch, which wrote nothing: decide again against what the other write left.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  // Still clashing: one item at a time, each clash its own 409 naming the holder.
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

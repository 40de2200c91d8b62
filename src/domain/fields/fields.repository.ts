import { and, count, eq, isNull } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { fields, type FieldType } from "@/db/schema";
import { conflict } from "@/lib/errors";
import { eventStatement, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { isUniqueViolation } from "@/lib/db-errors";
import { fieldMessages } from "./fields.rules";
import { commit } from "@/db/outbox";

export type FieldRow = typeof fields.$inferSelect;

export const toPublicField = (f: FieldRow) => ({
  field_uuid: f.id,
  key: f.key,
  label: f.label,
  type: f.type,
  options: f.options,
  archived_at: f.archivedAt,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

const ofAgency = (agencyId: string, fieldId: string) => and(eq(fields.id, fieldId.toLowerCase()), eq(fields.agencyId, agencyId));
const liveField = (agencyId: string, fieldId: string) => and(ofAgency(agencyId, fieldId), isNull(fields.archivedAt));

/** The event of a change to one field, for the change's batch (see eventStatement). */
const fieldEvent = (db: Db, agencyId: string, fieldId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "field", table: fields, where: ofAgency(agencyId, fieldId), ...options });

/** Changes a live field (an archived field is never changed), with its event; the field afterwards. */
const updateLiveField = (db: Db, agencyId: string, fieldId: string, type: EventType, set: SQLiteUpdateSetSource<typeof fields>) =>
  writeWithEvent(
    db,
    db.update(fields).set(set).where(liveField(agencyId, fieldId)).returning(),
    fieldEvent(db, agencyId, fieldId, type, { ifChanged: true }),
  );

export const fieldOrder = listOrder("asc", { createdAt: fields.createdAt, id: fields.id });

/** Definitions read best in the order they were made: oldest first, the id on ties. */
export function listFields(db: Db, agencyId: string, options: { includeArchived: boolean; page: PageWindow }) {
  const where = options.includeArchived ? eq(fields.agencyId, agencyId) : and(eq(fields.agencyId, agencyId), isNull(fields.archivedAt));
  return readListPage(
    db,
    options.page,
    db.select().from(fields).where(fieldOrder.where(options.page, where)).orderBy(...fieldOrder.orderBy).limit(options.page.read).offset(options.page.offset),
    db.select({ total: count() }).from(fields).where(where),
  );
}

/** Every definition of the agency, live and archived: the input of custom_fields checks. */
export const listAllFields = (db: Db, agencyId: string) => db.select().from(fields).where(eq(fields.agencyId, agencyId)).all();

export const getLiveField = (db: Db, agencyId: string, fieldId: string) =>
  db.select().from(fields).where(liveField(agencyId, fieldId)).get();

/** One live field per key is the partial unique index's job, so two racing creates cannot both win. */
export async function createField(db: Db, agencyId: string, input: { key: string; label: string; type: FieldType; options: string[] }) {
  const now = nowIso();
  const row: FieldRow = { id: newId(), agencyId, ...input, archivedAt: null, createdAt: now, updatedAt: now };
  try {
    await commit(db, [db.insert(fields).values(row), fieldEvent(db, agencyId, row.id, "field.created")]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await db
      .select({ id: fields.id })
      .from(fields)
      .where(and(eq(fields.agencyId, agencyId), eq(fields.key, input.key), isNull(fields.archivedAt)))
      .get();
    throw conflict(existing ? fieldMessages.duplicateKey(existing.id) : "A field with this key already exists");
  }
  return row;
}

/** Conditional on the field still being live: an archived field is never changed. */
export const updateField = (db: Db, agencyId: string, fieldId: string, patch: { label?: string; options?: string[] }) =>
  updateLiveField(db, agencyId, fieldId, "field.updated", { ...patch, updatedAt: nowIso() });

export async function archiveField(db: Db, agencyId: string, fieldId: string) {
  const now = nowIso();
  return updateLiveField(db, agencyId, fieldId, "field.archived", { archivedAt: now, updatedAt: now });
}

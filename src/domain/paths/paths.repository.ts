import { and, count, eq, isNull, ne, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { paths, pathVersions, type pathStatuses } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { eventStatement, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import type { Step } from "./paths.model";
import { commit } from "@/db/outbox";

export type PathRow = typeof paths.$inferSelect;
export type PathVersionRow = typeof pathVersions.$inferSelect;
export type PathStatus = (typeof pathStatuses)[number];

const steps = (row: { steps: unknown[] }) => row.steps as Step[];

export const toPublicPath = (p: PathRow) => ({
  path_uuid: p.id,
  name: p.name,
  description: p.description,
  status: p.status,
  steps: steps(p),
  version: p.version,
  published_version: p.publishedVersion,
  published_at: p.publishedAt,
  archived_at: p.deletedAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

/** The thin catalog entry that an `analytics`-only key sees. */
export const toCatalogEntry = (p: PathRow) => ({
  path_uuid: p.id,
  name: p.name,
  status: p.status,
  published_at: p.publishedAt,
});

export const toPublicVersion = (v: PathVersionRow) => ({
  path_uuid: v.pathId,
  version: v.version,
  name: v.name,
  description: v.description,
  steps: steps(v),
  published_at: v.publishedAt,
});

const ofAgency = (agencyId: string, pathId: string) => and(eq(paths.id, pathId.toLowerCase()), eq(paths.agencyId, agencyId));
/** Not archived: the only paths that can still change. */
const editable = (agencyId: string, pathId: string) => and(ofAgency(agencyId, pathId), isNull(paths.deletedAt));

/** The event of a change to one path, for the change's batch (see eventStatement). */
const pathEvent = (db: Db, agencyId: string, pathId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "path", table: paths, where: ofAgency(agencyId, pathId), ...options });

/** Changes a path that is not archived, with its event; the path afterwards, undefined when archived (or gone). */
const updateEditable = (db: Db, agencyId: string, pathId: string, type: EventType, set: SQLiteUpdateSetSource<typeof paths>) =>
  writeWithEvent(
    db,
    db.update(paths).set(set).where(editable(agencyId, pathId)).returning(),
    pathEvent(db, agencyId, pathId, type, { ifChanged: true }),
  );

/** Any path of the agency, archived ones included. */
export const getPath = (db: Db, agencyId: string, pathId: string) => db.select().from(paths).where(ofAgency(agencyId, pathId)).get();

export const pathOrder = listOrder("desc", { createdAt: paths.createdAt, id: paths.id });

export function listPaths(db: Db, agencyId: string, filters: { status?: PathStatus }, page: PageWindow) {
  const where = and(eq(paths.agencyId, agencyId), filters.status ? eq(paths.status, filters.status) : ne(paths.status, "archived"));
  return readListPage(
    db,
    page,
    db.select().from(paths).where(pathOrder.where(page, where)).orderBy(...pathOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(paths).where(where),
  );
}

export async function createPath(db: Db, agencyId: string, input: { name: string; description: string | null; steps: Step[] }) {
  const now = nowIso();
  const row: PathRow = {
    id: newId(),
    agencyId,
    ...input,
    status: "draft",
    version: 1,
    publishedVersion: null,
    publishedAt: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(db, [db.insert(paths).values(row), pathEvent(db, agencyId, row.id, "path.created")]);
  return row;
}

/**
 * Changes the draft and bumps its revision in one conditional UPDATE (`version = version + 1`),
 * so concurrent edits each get their own revision and an archived path is never changed.
 * Returns undefined when the path is archived (or gone).
 */
export const updateDraft = (db: Db, agencyId: string, pathId: string, patch: { name?: string; description?: string | null; steps?: Step[] }) =>
  updateEditable(db, agencyId, pathId, "path.updated", { ...patch, version: sql`${paths.version} + 1`, updatedAt: nowIso() });

/**
 * Publishes the current draft: moves the path's published pointer to its `version` and copies
 * that same row into path_versions, in one batch (D1 runs a batch as one transaction, so the
 * snapshot is exactly the revision the pointer names, even if a PATCH lands a moment later).
 * The UPDATE only matches a path that is not archived and whose draft is newer than what is
 * live, and the unique (path, version) index backs it up: of two racing publishes of one
 * revision, one wins and the other is a 409. Returns undefined when nothing was published.
 */
export async function publishDraft(db: Db, agencyId: string, pathId: string) {
  const now = nowIso();
  try {
    const [updated] = await commit(db, [
      db
        .update(paths)
        .set({ status: "published", publishedVersion: sql`${paths.version}`, publishedAt: now, updatedAt: now })
        .where(and(editable(agencyId, pathId), sql`(${paths.publishedVersion} IS NULL OR ${paths.publishedVersion} < ${paths.version})`))
        .returning(),
      pathEvent(db, agencyId, pathId, "path.published", { ifChanged: true }),
      db
        .insert(pathVersions)
        .select(
          sql`SELECT ${newId()}, agency_id, id, version, name, description, steps, published_at FROM paths
              WHERE id = ${pathId} AND agency_id = ${agencyId} AND published_at = ${now} AND published_version = version`,
        ),
    ]);
    return updated[0];
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** Archives a path that is not archived yet; undefined otherwise. */
export async function archivePath(db: Db, agencyId: string, pathId: string) {
  const now = nowIso();
  return updateEditable(db, agencyId, pathId, "path.deleted", { status: "archived", deletedAt: now, updatedAt: now });
}

export const versionOrder = listOrder("desc", { version: pathVersions.version, id: pathVersions.id });

/**
 * A path's published versions, newest first, in one D1 round trip (one batch) with the path
 * itself (archived included): `found` is false when the agency has no such path.
 */
export async function listVersions(db: Db, agencyId: string, pathId: string, page: PageWindow) {
  const where = and(eq(pathVersions.agencyId, agencyId), eq(pathVersions.pathId, pathId.toLowerCase()));
  const [path, rows, totals] = await commit(db, [
    db.select({ id: paths.id }).from(paths).where(ofAgency(agencyId, pathId)),
    db.select().from(pathVersions).where(versionOrder.where(page, where)).orderBy(...versionOrder.orderBy).limit(page.read).offset(page.offset),
    // A cursor page carries its total: the count then reads nothing.
    db.select({ total: count() }).from(pathVersions).where(page.total === undefined ? where : sql`0`),
  ]);
  return { found: path.length > 0, rows, total: page.total ?? totals[0]?.total ?? 0 };
}

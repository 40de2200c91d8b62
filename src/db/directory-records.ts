import { and, eq } from "drizzle-orm";
import type { Env } from "@/env";
import type { Db } from "./client";
import { apiKeys, directoryRecords, members } from "./schema";
import { directoryDb } from "./shards";

/**
 * The directory rows of records found by their id alone, before their agency is known: API keys
 * (a token names its key) and team members (the operator's dashboard-link route). See
 * docs/decisions/shards-and-moves.md, "Directory rows of refused creates".
 */

export type DirectoryRecordKind = (typeof directoryRecords.$inferSelect)["kind"];

export interface DirectoryRecord {
  kind: DirectoryRecordKind;
  id: string;
  agencyId: string;
}

/** The shard table holding each kind of record. */
export const directoryRecordTables = { api_key: apiKeys, member: members } as const;

/** Whether the record itself is in this database (the agency's shard). */
async function isRecordIn(db: Db, record: Pick<DirectoryRecord, "kind" | "id">): Promise<boolean> {
  const table = directoryRecordTables[record.kind];
  return (await db.select({ id: table.id }).from(table).where(eq(table.id, record.id)).get()) !== undefined;
}

/**
 * Creates a record with its directory row, `write` writing the record to the agency's shard
 * (`db`). The row goes first, so a record is never on its shard without it: a token or a
 * member link works from the moment the create answers, and a create refused by the shard
 * (a 409, the 503 of a move, a validation failure inside the batch) removes it again, unless
 * the record turns out to be there after all (an error after the commit). The one gap, a
 * Worker dying between the two writes or the removal failing, leaves a row nothing points to
 * and no one can use (its id was never answered); the operator's orphan sweep removes those
 * (src/domain/agencies/directory-orphans.ts).
 */
export async function createWithDirectoryRecord<T>(env: Pick<Env, "DB">, db: Db, record: DirectoryRecord, createdAt: string, write: () => Promise<T>): Promise<T> {
  await directoryDb(env).insert(directoryRecords).values({ ...record, createdAt });
  try {
    return await write();
  } catch (error) {
    await forgetUnwritten(env, db, record);
    throw error;
  }
}

async function forgetUnwritten(env: Pick<Env, "DB">, db: Db, record: DirectoryRecord) {
  try {
    if (await isRecordIn(db, record)) return;
    await directoryDb(env)
      .delete(directoryRecords)
      .where(and(eq(directoryRecords.id, record.id), eq(directoryRecords.kind, record.kind), eq(directoryRecords.agencyId, record.agencyId)));
  } catch {
    // Left to the orphan sweep: the create's own error is the answer that matters.
  }
}

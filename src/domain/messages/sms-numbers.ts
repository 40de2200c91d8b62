import { eq } from "drizzle-orm";
import type { Env } from "@/env";
import { isUniqueViolation } from "@/lib/db-errors";
import { nowIso } from "@/lib/time";
import { agencyDirectory, smsNumbers } from "@/db/schema";
import { directoryDb } from "@/db/shards";
import { commit } from "@/db/outbox";

/**
 * Agencies' SMS sender numbers, in the directory (docs/decisions/real-providers.md): an inbound SMS names
 * only the number it was sent to, so the number must lead to its agency before the agency's
 * shard is known. One agency per number (the primary key), one number per agency.
 */

/** The agency's sender number, or null when it has none. */
export const smsNumberOf = async (env: Pick<Env, "DB">, agencyId: string) =>
  (await directoryDb(env).select({ number: smsNumbers.number }).from(smsNumbers).where(eq(smsNumbers.agencyId, agencyId)).get())?.number ?? null;

/** The agency (and its shard) that owns a number, or undefined. */
export const agencyOfSmsNumber = (env: Pick<Env, "DB">, number: string) =>
  directoryDb(env)
    .select({ agencyId: agencyDirectory.agencyId, shard: agencyDirectory.shard, movingTo: agencyDirectory.movingTo })
    .from(smsNumbers)
    .innerJoin(agencyDirectory, eq(agencyDirectory.agencyId, smsNumbers.agencyId))
    .where(eq(smsNumbers.number, number))
    .get();

/**
 * Gives the agency `number`, replacing the one it had, in one batch. Returns the agency that
 * holds the number instead when it is another's (nothing changes then).
 */
export async function assignSmsNumber(env: Pick<Env, "DB">, agencyId: string, number: string): Promise<{ heldBy?: string }> {
  const db = directoryDb(env);
  const holder = await db.select({ agencyId: smsNumbers.agencyId }).from(smsNumbers).where(eq(smsNumbers.number, number)).get();
  if (holder && holder.agencyId !== agencyId) return { heldBy: holder.agencyId };
  if (holder) return {};
  try {
    await commit(db, [db.delete(smsNumbers).where(eq(smsNumbers.agencyId, agencyId)), db.insert(smsNumbers).values({ number, agencyId, createdAt: nowIso() })]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another agency took it between the read and the write.
    const taken = await db.select({ agencyId: smsNumbers.agencyId }).from(smsNumbers).where(eq(smsNumbers.number, number)).get();
    return { heldBy: taken?.agencyId ?? "another agency" };
  }
  return {};
}

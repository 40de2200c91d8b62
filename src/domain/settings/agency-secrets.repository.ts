import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencySecrets } from "@/db/schema";
import { nowIso } from "@/lib/time";

/**
 * An agency's secrets (OAuth tokens, provider credentials): written by the operator API, never
 * read back by any route (db/schema/settings.ts keeps them apart from the settings).
 */

/** Insert, or replace the value of an existing name; `created` when it was new. */
export async function putAgencySecret(db: Db, agencyId: string, name: string, value: string) {
  const now = nowIso();
  const inserted = await db.insert(agencySecrets).values({ agencyId, name, value, updatedAt: now }).onConflictDoNothing().returning({ name: agencySecrets.name });
  if (inserted.length > 0) return { created: true, updatedAt: now };
  await db
    .update(agencySecrets)
    .set({ value, updatedAt: now })
    .where(and(eq(agencySecrets.agencyId, agencyId), eq(agencySecrets.name, name)));
  return { created: false, updatedAt: now };
}

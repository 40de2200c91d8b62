import { asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencies } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type AgencyRow = typeof agencies.$inferSelect;

export const toPublicAgency = (a: AgencyRow) => ({
  agency_uuid: a.id,
  name: a.name,
  timezone: a.timezone,
  created_at: a.createdAt,
});

export async function createAgency(db: Db, input: { name: string; timezone: string }) {
  const now = nowIso();
  const row: AgencyRow = { id: newId(), ...input, createdAt: now, updatedAt: now };
  await db.insert(agencies).values(row);
  return row;
}

export const getAgency = (db: Db, agencyId: string) => db.select().from(agencies).where(eq(agencies.id, agencyId)).get();

export const listAgencies = (db: Db) => db.select().from(agencies).orderBy(asc(agencies.createdAt)).all();

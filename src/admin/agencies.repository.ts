import { asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencies, pathEvents } from "@/db/schema";
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

export async function recordPathEvent(
  db: Db,
  agencyId: string,
  input: { pathId: string; type: "view" | "lead" | "booking"; step?: string; at?: string; contactId?: string },
) {
  const row = {
    id: newId(),
    agencyId,
    pathId: input.pathId.toLowerCase(),
    type: input.type,
    step: input.step ?? null,
    contactId: input.contactId ?? null,
    occurredAt: new Date(input.at ?? Date.now()).toISOString(),
    createdAt: nowIso(),
  };
  await db.insert(pathEvents).values(row);
  return row;
}

import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { members, memberRoles } from "@/db/schema";
import { conflict } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type MemberRow = typeof members.$inferSelect;
export type MemberRole = (typeof memberRoles)[number];

export const toPublicMember = (m: MemberRow) => ({
  agent_uuid: m.id,
  name: m.name,
  email: m.email,
  role: m.role,
  created_at: m.createdAt,
});

/** One live member per email, and one owner per agency. */
export async function createMember(db: Db, agencyId: string, input: { name: string; email: string; role: MemberRole }) {
  const live = and(eq(members.agencyId, agencyId), isNull(members.removedAt));
  const existing = await db
    .select({ id: members.id })
    .from(members)
    .where(and(live, eq(members.email, input.email)))
    .get();
  if (existing) throw conflict(`A team member with this email already exists: ${existing.id}`);
  if (input.role === "owner") {
    const owner = await db.select({ id: members.id }).from(members).where(and(live, eq(members.role, "owner"))).get();
    if (owner) throw conflict("This agency already has an owner");
  }
  const now = nowIso();
  const row: MemberRow = { id: newId(), agencyId, ...input, createdAt: now, updatedAt: now, removedAt: null };
  await db.insert(members).values(row);
  return row;
}

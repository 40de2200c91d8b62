import { and, count, eq, isNull, ne } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { members, memberRoles } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { conflict } from "@/lib/errors";
import { eventStatement, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { liveMemberQuery, liveMemberWhere } from "./team-member";
import { nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

export type MemberRow = typeof members.$inferSelect;
export type MemberRole = (typeof memberRoles)[number];

export const toPublicMember = (m: MemberRow) => ({
  agent_uuid: m.id,
  name: m.name,
  email: m.email,
  role: m.role,
  created_at: m.createdAt,
});

export const duplicateMemberMessage = (uuid: string) => `A team member with this email already exists: ${uuid}`;

const liveOfAgency = (agencyId: string) => and(eq(members.agencyId, agencyId), isNull(members.removedAt));

/** The event of a change to one team member, for the change's batch (see eventStatement). */
const memberEvent = (db: Db, agencyId: string, memberId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, {
    agencyId,
    type,
    objectType: "team_member",
    table: members,
    where: and(eq(members.id, memberId.toLowerCase()), eq(members.agencyId, agencyId)),
    ...options,
  });

/** The live (not removed) member of the agency holding this email, if any. */
export const findLiveMemberByEmail = (db: Db, agencyId: string, email: string) =>
  db.select({ id: members.id }).from(members).where(and(liveOfAgency(agencyId), eq(members.email, email))).get();

/**
 * One live member per email (also enforced by the partial unique index, so a racing insert is a
 * 409 too), and one owner per agency.
 */
export async function createMember(db: Db, agencyId: string, input: { name: string; email: string; role: MemberRole }, id = newId()) {
  const existing = await findLiveMemberByEmail(db, agencyId, input.email);
  if (existing) throw conflict(duplicateMemberMessage(existing.id));
  if (input.role === "owner") {
    const owner = await db.select({ id: members.id }).from(members).where(and(liveOfAgency(agencyId), eq(members.role, "owner"))).get();
    if (owner) throw conflict("This agency already has an owner");
  }
  const now = nowIso();
  const row: MemberRow = { id, agencyId, ...input, createdAt: now, updatedAt: now, removedAt: null };
  try {
    await commit(db, [db.insert(members).values(row), memberEvent(db, agencyId, row.id, "user.created")]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const holder = await findLiveMemberByEmail(db, agencyId, input.email);
    throw conflict(holder ? duplicateMemberMessage(holder.id) : "A team member with this email already exists");
  }
  return row;
}

export const getLiveMember = (db: Db, agencyId: string, memberId: string) => liveMemberQuery(db, agencyId, memberId).get();

/** Live members, newest first; removed members are never listed. */
export const memberOrder = listOrder("desc", { createdAt: members.createdAt, id: members.id });

export function listMembers(db: Db, agencyId: string, filters: { role?: MemberRole }, page: PageWindow) {
  const where = and(liveOfAgency(agencyId), filters.role ? eq(members.role, filters.role) : undefined);
  return readListPage(
    db,
    page,
    db.select().from(members).where(memberOrder.where(page, where)).orderBy(...memberOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(members).where(where),
  );
}

/** A live member who is not the owner: the only members whose role can change or who can be removed. */
const changeable = (agencyId: string, memberId: string) => and(liveMemberWhere(agencyId, memberId), ne(members.role, "owner"));

/**
 * Sets the role of a live member who is not the owner, conditionally, so the owner can never be
 * demoted; the `user.role_changed` event only when the role is a new one (the same role again
 * changes nothing). One batch; returns the member afterwards, undefined when the member is
 * missing, removed or the owner.
 */
export async function changeRole(db: Db, agencyId: string, memberId: string, role: Exclude<MemberRole, "owner">) {
  const [, , current] = await commit(db, [
    db
      .update(members)
      .set({ role, updatedAt: nowIso() })
      .where(and(changeable(agencyId, memberId), ne(members.role, role))),
    memberEvent(db, agencyId, memberId, "user.role_changed", { ifChanged: true }),
    db.select().from(members).where(changeable(agencyId, memberId)),
  ]);
  return current[0];
}

/** Soft-removes a live member who is not the owner, with its event; undefined when missing, removed or the owner. */
export async function removeMember(db: Db, agencyId: string, memberId: string) {
  const now = nowIso();
  return writeWithEvent(
    db,
    db.update(members).set({ removedAt: now, updatedAt: now }).where(changeable(agencyId, memberId)).returning(),
    memberEvent(db, agencyId, memberId, "user.removed", { ifChanged: true }),
  );
}

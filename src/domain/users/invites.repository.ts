import { and, count, eq, gt, lte } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { invites } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { conflict } from "@/lib/errors";
import { eventStatement } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { addDays, nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

export type InviteRow = typeof invites.$inferSelect;

export const INVITE_TTL_DAYS = 7;

export const duplicateInviteMessage = (uuid: string) => `A pending invite for this email already exists: ${uuid}`;

export const toPublicInvite = (i: InviteRow) => ({
  invite_uuid: i.id,
  email: i.email,
  // Invites are only made through POST /users/invites, which refuses `owner`.
  role: i.role as "admin" | "agent",
  status: i.status,
  expires_at: i.expiresAt,
  created_at: i.createdAt,
});

/** Pending and not yet expired: the invites that can still be accepted. */
const openInvites = (agencyId: string, now: string) =>
  and(eq(invites.agencyId, agencyId), eq(invites.status, "pending"), gt(invites.expiresAt, now));

export const inviteOrder = listOrder("desc", { createdAt: invites.createdAt, id: invites.id });

export function listOpenInvites(db: Db, agencyId: string, page: PageWindow) {
  const where = openInvites(agencyId, nowIso());
  return readListPage(
    db,
    page,
    db.select().from(invites).where(inviteOrder.where(page, where)).orderBy(...inviteOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(invites).where(where),
  );
}

const findOpenInvite = (db: Db, agencyId: string, email: string) =>
  db
    .select({ id: invites.id })
    .from(invites)
    .where(and(openInvites(agencyId, nowIso()), eq(invites.email, email)))
    .get();

/**
 * One pending invite per email is the partial unique index's job, so of two concurrent invites
 * for one email exactly one insert succeeds and the other is a 409. An expired invite still
 * holds `status = 'pending'` (nothing sweeps it), so the same batch first marks it `expired`,
 * which frees the email; the batch is one transaction, so a failed insert undoes that too. The
 * `user.invited` event is in the same batch.
 */
export async function createInvite(db: Db, agencyId: string, input: { email: string; role: "admin" | "agent" }) {
  const now = new Date();
  const nowText = now.toISOString();
  const row: InviteRow = {
    id: newId(),
    agencyId,
    ...input,
    status: "pending",
    expiresAt: addDays(now, INVITE_TTL_DAYS).toISOString(),
    createdAt: nowText,
  };
  try {
    await commit(db, [
      db
        .update(invites)
        .set({ status: "expired" })
        .where(and(eq(invites.agencyId, agencyId), eq(invites.email, input.email), eq(invites.status, "pending"), lte(invites.expiresAt, nowText))),
      db.insert(invites).values(row),
      eventStatement(db, {
        agencyId,
        type: "user.invited",
        objectType: "invite",
        table: invites,
        where: and(eq(invites.id, row.id), eq(invites.agencyId, agencyId)),
      }),
    ]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const holder = await findOpenInvite(db, agencyId, input.email);
    throw conflict(holder ? duplicateInviteMessage(holder.id) : "A pending invite for this email already exists");
  }
  return row;
}

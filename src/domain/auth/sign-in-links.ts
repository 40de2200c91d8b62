import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { dashboardLinks, dashboardSessions, members } from "@/db/schema";
import type { Env } from "@/env";
import { auditStatement, OPERATOR } from "@/domain/audit/audit-log";
import { hashToken, newAgencySecret } from "@/lib/auth/tokens";
import { randomSecret } from "@/lib/crypto";
import { conflict, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { isoAt } from "@/lib/time";
import { commit } from "@/db/outbox";

type HashEnv = Pick<Env, "TOKEN_PEPPER">;

export const LINK_TTL_MS = 15 * 60_000;
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Roles that may use the dashboard (the specification: owners and admins manage keys; docs/decisions/dashboard.md). */
export const DASHBOARD_ROLES = ["owner", "admin"] as const;

export const SIGN_IN_PATH = "/dashboard/sign-in/";

export const signInMessages = {
  memberNotFound: "Team member not found",
  memberRemoved: "This team member was removed from the agency and cannot sign in to the dashboard",
  agentRole: "Only owners and admins can sign in to the dashboard; this team member's role is agent",
} as const;

/**
 * Issues a one-time sign-in link for a member who may use the dashboard: 15 minutes, single
 * use, only its hash stored. `db` is the shard of the member's agency. The link's secret names
 * the agency (`newAgencySecret`), so opening it finds the shard before the link. Returns the
 * URL under `origin` and when it expires.
 */
export async function issueSignInLink(db: Db, env: HashEnv, memberId: string, origin: string) {
  const member = await db.select().from(members).where(eq(members.id, memberId.toLowerCase())).get();
  if (!member) throw notFound(signInMessages.memberNotFound);
  if (member.removedAt) throw conflict(signInMessages.memberRemoved);
  if (member.role === "agent") throw conflict(signInMessages.agentRole);

  const token = newAgencySecret(member.agencyId);
  const now = Date.now();
  const expiresAt = isoAt(now + LINK_TTL_MS);
  const id = newId();
  await commit(db, [
    db.insert(dashboardLinks).values({
      id,
      tokenHash: await hashToken(token, env),
      agencyId: member.agencyId,
      memberId: member.id,
      expiresAt,
      usedAt: null,
      createdAt: isoAt(now),
    }),
    auditStatement(db, {
      agencyId: member.agencyId,
      actor: OPERATOR,
      action: "dashboard.link_issued",
      targetType: "member",
      targetId: member.id,
      detail: { name: member.name, expires_at: expiresAt },
    }),
  ]);
  return { url: `${origin}${SIGN_IN_PATH}${token}`, expiresAt };
}

export type SignInOutcome =
  | { outcome: "signed_in"; secret: string; agencyId: string; memberId: string }
  /** No link has this token. */
  | { outcome: "unknown" }
  /** The link was used already, or its 15 minutes are over. */
  | { outcome: "spent" }
  /** The link was good, but its member may not use the dashboard (any more). */
  | { outcome: "forbidden"; removed: boolean };

/**
 * Opens a sign-in link (on the shard of the agency it names): marks it used and starts a
 * session in one batch. The session's secret names the agency too. The UPDATE only
 * matches an unused, unexpired link, and the session INSERT only runs when that UPDATE changed
 * a row (SQLite's `changes()`) and the member is a live owner or admin, so of any number of
 * concurrent opens exactly one starts a session.
 */
export async function openSignInLink(db: Db, env: HashEnv, agencyId: string, token: string): Promise<SignInOutcome> {
  const tokenHash = await hashToken(token, env);
  const now = Date.now();
  const secret = newAgencySecret(agencyId);
  const session = {
    id: newId(),
    secretHash: await hashToken(secret, env),
    csrfToken: randomSecret(),
    createdAt: isoAt(now),
    expiresAt: isoAt(now + SESSION_TTL_MS),
  };
  const roles = sql.join(
    DASHBOARD_ROLES.map((r) => sql`${r}`),
    sql`, `,
  );
  const [consumed, started] = await commit(db, [
    db
      .update(dashboardLinks)
      .set({ usedAt: session.createdAt })
      .where(and(eq(dashboardLinks.tokenHash, tokenHash), isNull(dashboardLinks.usedAt), gt(dashboardLinks.expiresAt, session.createdAt)))
      .returning({ memberId: dashboardLinks.memberId }),
    // Values in the table's column order (drizzle lists every column for INSERT ... SELECT).
    db
      .insert(dashboardSessions)
      .select(
        sql`SELECT ${session.id}, ${session.secretHash}, l.agency_id, l.member_id, ${session.csrfToken}, ${session.createdAt}, ${session.expiresAt}, NULL
            FROM ${dashboardLinks} AS l JOIN ${members} AS m ON m.id = l.member_id AND m.agency_id = l.agency_id
            WHERE l.token_hash = ${tokenHash} AND changes() > 0 AND m.removed_at IS NULL AND m.role IN (${roles})`,
      )
      .returning({ agencyId: dashboardSessions.agencyId, memberId: dashboardSessions.memberId }),
  ]);
  const created = started[0];
  if (created) {
    // Its own statement: whose sign-in it is, the batch only tells once it has run.
    await auditStatement(db, {
      agencyId: created.agencyId,
      actor: { type: "member", memberId: created.memberId },
      action: "dashboard.signed_in",
      targetType: "member",
      targetId: created.memberId,
    });
    return { outcome: "signed_in", secret, ...created };
  }
  const memberId = consumed[0]?.memberId;
  if (memberId) {
    const member = await db.select({ removedAt: members.removedAt }).from(members).where(eq(members.id, memberId)).get();
    return { outcome: "forbidden", removed: Boolean(member?.removedAt) };
  }
  const link = await db.select({ id: dashboardLinks.id }).from(dashboardLinks).where(eq(dashboardLinks.tokenHash, tokenHash)).get();
  return link ? { outcome: "spent" } : { outcome: "unknown" };
}

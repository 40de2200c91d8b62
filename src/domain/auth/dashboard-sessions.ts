import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencyLocation } from "@/db/shards";
import { agencies, dashboardSessions, memberRoles, members } from "@/db/schema";
import type { Env } from "@/env";
import { auditStatement } from "@/domain/audit/audit-log";
import { AGENCY_SECRET_SHAPE, agencyIdOfSecret, hashToken } from "@/lib/auth/tokens";
import { nowIso } from "@/lib/time";
import { DASHBOARD_ROLES } from "./sign-in-links";
import { commit } from "@/db/outbox";

/**
 * The session cookie. `__Host-` makes browsers refuse it unless it is `Secure`, has `Path=/`
 * and no `Domain`, so no subdomain can set or overwrite it.
 */
export const SESSION_COOKIE = "__Host-pa_session";

/** The session cookie's attributes, for setting and for dropping it alike. */
export const SESSION_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: "Strict", path: "/" } as const;

/**
 * Link and cookie secrets name their agency (`newAgencySecret`: 32 hex and 43 base64url
 * characters); anything else is none of ours and not worth a query.
 */
export const SECRET_SHAPE = AGENCY_SECRET_SHAPE;

/** A signed-in member, as every dashboard page needs it. */
export interface DashboardSession {
  sessionId: string;
  csrfToken: string;
  expiresAt: string;
  memberId: string;
  memberName: string;
  role: (typeof DASHBOARD_ROLES)[number];
  agencyId: string;
  agencyName: string;
}

/** A live session's member whatever their role: the consent page tells an agent why they may not approve. */
export type MemberSession = Omit<DashboardSession, "role"> & { role: (typeof memberRoles)[number] };

const isDashboardSession = (session: MemberSession): session is DashboardSession =>
  (DASHBOARD_ROLES as readonly string[]).includes(session.role);

/** The live session of a cookie secret, whatever its member's role now is, or undefined. */
async function loadMemberSession(db: Db, env: Pick<Env, "TOKEN_PEPPER">, secret: string): Promise<MemberSession | undefined> {
  const row = await db
    .select({
      sessionId: dashboardSessions.id,
      csrfToken: dashboardSessions.csrfToken,
      expiresAt: dashboardSessions.expiresAt,
      memberId: members.id,
      memberName: members.name,
      role: members.role,
      agencyId: agencies.id,
      agencyName: agencies.name,
    })
    .from(dashboardSessions)
    .innerJoin(members, and(eq(members.id, dashboardSessions.memberId), eq(members.agencyId, dashboardSessions.agencyId)))
    .innerJoin(agencies, eq(agencies.id, dashboardSessions.agencyId))
    .where(
      and(
        eq(dashboardSessions.secretHash, await hashToken(secret, env)),
        isNull(dashboardSessions.endedAt),
        gt(dashboardSessions.expiresAt, nowIso()),
        isNull(members.removedAt),
      ),
    )
    .get();
  return row;
}

/**
 * The live session of a cookie secret, or undefined. Whether the member may still use the
 * dashboard is decided here, on every request: a member removed or demoted to agent loses
 * every session at once, with nothing to clean up.
 */
export async function loadSession(db: Db, env: Pick<Env, "TOKEN_PEPPER">, secret: string): Promise<DashboardSession | undefined> {
  const session = await loadMemberSession(db, env, secret);
  return session && isDashboardSession(session) ? session : undefined;
}

/**
 * The live session of a cookie secret, read on the shard of the agency the secret names
 * (`open` makes that shard's client), or undefined. With `anyRole`, a member demoted to agent
 * is found too (for the consent page's refusal); every other page leaves them out.
 */
export async function findSession(env: Pick<Env, "TOKEN_PEPPER" | "DB">, secret: string, open: (shard: string) => Db): Promise<{ session: DashboardSession; db: Db } | undefined>;
export async function findSession(env: Pick<Env, "TOKEN_PEPPER" | "DB">, secret: string, open: (shard: string) => Db, anyRole: true): Promise<{ session: MemberSession; db: Db } | undefined>;
export async function findSession(env: Pick<Env, "TOKEN_PEPPER" | "DB">, secret: string, open: (shard: string) => Db, anyRole = false) {
  const agencyId = agencyIdOfSecret(secret);
  const location = agencyId ? await agencyLocation(env, agencyId) : undefined;
  if (!location) return undefined;
  const db = open(location.shard);
  const session = anyRole ? await loadMemberSession(db, env, secret) : await loadSession(db, env, secret);
  return session ? { session, db } : undefined;
}

/** A member session whose member may use the dashboard (owner or admin). */
export const mayUseDashboard = isDashboardSession;

/** Sign-out: the session stops working at once; recorded in the audit log. */
export async function endSession(db: Db, session: DashboardSession) {
  await commit(db, [
    db
      .update(dashboardSessions)
      .set({ endedAt: nowIso() })
      .where(and(eq(dashboardSessions.id, session.sessionId), isNull(dashboardSessions.endedAt))),
    auditStatement(
      db,
      {
        agencyId: session.agencyId,
        actor: { type: "member", memberId: session.memberId },
        action: "dashboard.signed_out",
        targetType: "member",
        targetId: session.memberId,
      },
      { ifChanged: true },
    ),
  ]);
}

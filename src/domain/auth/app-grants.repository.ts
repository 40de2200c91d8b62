import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencyDb } from "@/db/shards";
import { appGrants, members } from "@/db/schema";
import type { Env } from "@/env";
import { auditStatement, type Actor } from "@/domain/audit/audit-log";
import { notFound } from "@/lib/errors";
import { eventStatement } from "@/domain/events/events";
import { createLogger } from "@/lib/logger";
import { agencyMovingError, isAgencyMovingError } from "@/lib/shards/agency-moving";
import { nowIso } from "@/lib/time";
import { publishWritten } from "@/domain/webhooks/publish";
import { commit } from "@/db/outbox";

/**
 * The agency's record of each app it connected through OAuth (db/schema/app-grants.ts): written
 * with its `app.authorized` event when the app first exchanges its code, marked revoked with
 * its `app.revoked` event.
 */

export type AppGrantRow = typeof appGrants.$inferSelect;

/** An app's name is its own words: kept to this many characters wherever it is stored or shown. */
export const MAX_CLIENT_NAME_LENGTH = 200;
/** A Client ID Metadata Document's URL is the app's client id; the library caps neither, we cap what we store. */
export const MAX_CLIENT_ID_LENGTH = 2048;

/** What the consent page stores in a grant (encrypted by the OAuth library), read back when the app exchanges its code. */
export interface GrantProps {
  agency_uuid: string;
  /** The member who approved it. */
  granted_by: string;
  client_name: string;
  client_domain: string | null;
  redirect_host: string;
}

/** A connected app as the operator API and the events show it. */
export const toPublicGrant = (row: AppGrantRow) => ({
  grant_id: row.id,
  client_id: row.clientId,
  client_name: row.clientName,
  client_domain: row.clientDomain,
  redirect_host: row.redirectHost,
  resource: row.resource,
  scopes: row.scopes,
  granted_by: row.grantedBy,
  rate_limit_multiplier: row.rateLimitMultiplier,
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
  revoked_at: row.revokedAt,
});

const grantEvent = (db: Db, agencyId: string, grantId: string, type: "app.authorized" | "app.revoked") =>
  eventStatement(db, { agencyId, type, objectType: "app_grant", table: appGrants, where: eq(appGrants.id, grantId), ifChanged: true });

const grantAudit = (db: Db, agencyId: string, grantId: string, actor: Actor, action: "app.authorized" | "app.revoked", clientName: string) =>
  auditStatement(db, { agencyId, actor, action, targetType: "app_grant", targetId: grantId, detail: { client_name: clientName } }, { ifChanged: true });

/**
 * Records a grant whose app has just exchanged its code: the row, its `app.authorized` event and
 * the approver's audit entry in one batch, then the event's deliveries. An exchange retried
 * after a lost answer writes nothing twice (the row's id is the grant's). Throws the 503 of a
 * move when the agency is being moved (the library then refuses the exchange, its code unspent).
 */
export async function recordExchangedGrant(
  env: Env,
  grant: { grantId: string; clientId: string; scopes: string[]; resource: string; props: GrantProps },
): Promise<void> {
  const { props } = grant;
  const home = await agencyDb(env, props.agency_uuid);
  if (!home) throw notFound("The agency this app was connected to no longer exists");
  if (home.location.movingTo) throw agencyMovingError();
  const { db } = home;
  const now = nowIso();
  try {
    await commit(db, [
      db
        .insert(appGrants)
        .values({
          id: grant.grantId,
          agencyId: props.agency_uuid,
          clientId: grant.clientId,
          clientName: props.client_name,
          clientDomain: props.client_domain,
          redirectHost: props.redirect_host,
          resource: grant.resource,
          scopes: grant.scopes,
          grantedBy: props.granted_by,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing(),
      grantEvent(db, props.agency_uuid, grant.grantId, "app.authorized"),
      grantAudit(db, props.agency_uuid, grant.grantId, { type: "member", memberId: props.granted_by }, "app.authorized", props.client_name),
    ]);
  } catch (error) {
    if (isAgencyMovingError(error)) throw agencyMovingError();
    throw error;
  }
  await publishGrantEvents(env, db, grant.grantId);
}

/** Sends the deliveries of the grant events a write outside a request's shard session (the token endpoint's) committed. */
export const publishGrantEvents = (env: Env, db: Db, grantId: string) =>
  publishWritten(db, env.WEBHOOK_QUEUE, createLogger({ grant_id: grantId }, env.LOG_LEVEL));

/** The agency's connected apps, newest first (revoked ones too when asked), each with the name of the member who approved it. */
export const listAgencyGrants = (db: Db, agencyId: string, options: { includeRevoked: boolean }) =>
  db
    .select({ grant: appGrants, approverName: members.name })
    .from(appGrants)
    .leftJoin(members, and(eq(members.id, appGrants.grantedBy), eq(members.agencyId, appGrants.agencyId)))
    .where(and(eq(appGrants.agencyId, agencyId), options.includeRevoked ? undefined : isNull(appGrants.revokedAt)))
    .orderBy(desc(appGrants.createdAt), desc(appGrants.id))
    .all();

export type ListedGrant = Awaited<ReturnType<typeof listAgencyGrants>>[number];

/** One of the agency's grants; another agency's looks missing. */
export const getAgencyGrant = (db: Db, agencyId: string, grantId: string) =>
  db
    .select()
    .from(appGrants)
    .where(and(eq(appGrants.agencyId, agencyId), eq(appGrants.id, grantId)))
    .get();

/**
 * Marks a grant revoked, with its `app.revoked` event and the audit entry of who did it; a grant
 * already revoked changes nothing and records nothing. The row as it now is.
 */
export async function markGrantRevoked(db: Db, grant: AppGrantRow, actor: Actor): Promise<AppGrantRow> {
  const now = nowIso();
  const [rows] = await commit(db, [
    db
      .update(appGrants)
      .set({ revokedAt: now, updatedAt: now })
      .where(and(eq(appGrants.id, grant.id), isNull(appGrants.revokedAt)))
      .returning(),
    grantEvent(db, grant.agencyId, grant.id, "app.revoked"),
    grantAudit(db, grant.agencyId, grant.id, actor, "app.revoked", grant.clientName),
  ]);
  return (rows as AppGrantRow[])[0] ?? grant;
}

/** The operator's scaling of a grant's rate limits; the row as it now is. */
export async function setGrantMultiplier(db: Db, grant: AppGrantRow, multiplier: number): Promise<AppGrantRow> {
  const [row] = await db
    .update(appGrants)
    .set({ rateLimitMultiplier: multiplier, updatedAt: nowIso() })
    .where(and(eq(appGrants.id, grant.id), eq(appGrants.agencyId, grant.agencyId)))
    .returning();
  return row ?? grant;
}

/** The ids of the agency's live grants, whose gates must forget the agency's shard when it moves. */
export const liveGrantIds = async (db: Db, agencyId: string) =>
  (
    await db
      .select({ id: appGrants.id })
      .from(appGrants)
      .where(and(eq(appGrants.agencyId, agencyId), isNull(appGrants.revokedAt)))
      .all()
  ).map((r) => r.id);

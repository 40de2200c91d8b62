import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, appGrants, auditLog, members } from "@/db/schema";
import type { Caller } from "@/lib/context";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

/** Who acted: a signed-in member (the dashboard), the platform operator (ADMIN_TOKEN), or an API key or connected app (the Partner API). */
export type Actor = { type: "member"; memberId: string } | { type: "operator" } | { type: "api_key"; keyId: string } | { type: "app_grant"; grantId: string };

export const OPERATOR: Actor = { type: "operator" };

/** The Partner API's caller as the actor of its changes: its API key, or its connected app's grant. */
export const actorOf = (caller: Caller): Actor =>
  caller.credential.type === "api_key" ? { type: "api_key", keyId: caller.credential.keyId } : { type: "app_grant", grantId: caller.credential.grantId };

export type AuditAction =
  | "key.created"
  | "key.updated"
  | "key.revoked"
  | "key.secrets_rotated"
  | "key.rotate_key_regenerated"
  | "webhook_endpoint.created"
  | "webhook_endpoint.updated"
  | "webhook_endpoint.enabled"
  | "webhook_endpoint.disabled"
  | "webhook_endpoint.deleted"
  | "webhook_endpoint.secret_rotated"
  | "webhook_endpoint.tested"
  | "dashboard.link_issued"
  | "dashboard.signed_in"
  | "dashboard.signed_out"
  | "app.authorized"
  | "app.revoked";

export interface AuditEntry {
  agencyId: string;
  actor: Actor;
  action: AuditAction;
  targetType: "api_key" | "webhook_endpoint" | "member" | "app_grant";
  targetId: string;
  /** What changed, and a label of the target as it was (a key's name, an endpoint's URL). */
  detail?: Record<string, unknown>;
}

function actorId(actor: Actor): string | null {
  switch (actor.type) {
    case "member":
      return actor.memberId;
    case "api_key":
      return actor.keyId;
    case "app_grant":
      return actor.grantId;
    case "operator":
      return null;
  }
}

/**
 * The audit entry of a change, as one statement for the change's own `commit` batch, so the entry
 * and the change commit together. With `ifChanged` it is written only if the statement just
 * before it changed a row (SQLite's `changes()`), for conditional writes: no change, no entry.
 */
export function auditStatement(db: Db, entry: AuditEntry, options: { ifChanged?: boolean } = {}) {
  const row = {
    id: newId(),
    agencyId: entry.agencyId,
    actorType: entry.actor.type,
    actorId: actorId(entry.actor),
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    detail: entry.detail ?? null,
    createdAt: nowIso(),
  };
  if (!options.ifChanged) return db.insert(auditLog).values(row);
  // Values in the table's column order (drizzle lists every column for INSERT ... SELECT).
  return db
    .insert(auditLog)
    .select(
      sql`SELECT ${row.id}, ${row.agencyId}, ${row.actorType}, ${row.actorId}, ${row.action}, ${row.targetType}, ${row.targetId}, ${
        row.detail === null ? null : JSON.stringify(row.detail)
      }, ${row.createdAt} WHERE changes() > 0`,
    );
}

export const AUDIT_PAGE_SIZE = 50;

/** The agency's entries, newest first, with the acting member's, key's or app's name. */
export function listAuditEntries(db: Db, agencyId: string, page: number) {
  return db
    .select({
      id: auditLog.id,
      actorType: auditLog.actorType,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      detail: auditLog.detail,
      createdAt: auditLog.createdAt,
      memberName: members.name,
      keyName: apiKeys.name,
      appName: appGrants.clientName,
    })
    .from(auditLog)
    // Bound to the agency too, so an entry can only ever name one of the agency's own.
    .leftJoin(members, and(eq(auditLog.actorType, "member"), eq(members.id, auditLog.actorId), eq(members.agencyId, auditLog.agencyId)))
    .leftJoin(apiKeys, and(eq(auditLog.actorType, "api_key"), eq(apiKeys.id, auditLog.actorId), eq(apiKeys.agencyId, auditLog.agencyId)))
    .leftJoin(appGrants, and(eq(auditLog.actorType, "app_grant"), eq(appGrants.id, auditLog.actorId), eq(appGrants.agencyId, auditLog.agencyId)))
    .where(eq(auditLog.agencyId, agencyId))
    .orderBy(desc(auditLog.createdAt), desc(sql`${auditLog}.rowid`))
    .limit(AUDIT_PAGE_SIZE + 1)
    .offset((page - 1) * AUDIT_PAGE_SIZE)
    .all();
}

export type AuditListRow = Awaited<ReturnType<typeof listAuditEntries>>[number];

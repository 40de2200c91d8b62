import type { Db } from "@/db/client";
import type { Env } from "@/env";
import { auditStatement, type Actor, type AuditAction } from "@/domain/audit/audit-log";
import { badRequest, notFound } from "@/lib/errors";
import * as keys from "./api-keys.repository";
import type { ApiKeyRow } from "./api-keys.repository";

/**
 * The one implementation of every change to an API key (docs/decisions/dashboard.md): the
 * operator API and the dashboard both call these, so a rule holds whichever door a change
 * came through, each change invalidates the key's AccessGate (the very next request sees it),
 * and each writes its audit entry in the change's own batch.
 */
export interface KeyActionContext {
  db: Db;
  env: Pick<Env, "TOKEN_PREFIX" | "TOKEN_PEPPER" | "ACCESS_GATE" | "DB">;
  actor: Actor;
}

export const keyMessages = {
  notFound: "Key not found",
  neverExpires: "expires: false is only allowed for keys whose only scope is calendar",
  neverExpiringScopes: "A key that never expires may only hold the calendar scope",
  legacyScopes: "scopes of a legacy calendar token cannot change",
  legacyRotate: "Legacy calendar tokens have no secrets to rotate; revoke and replace them",
  revokedRotate: "A revoked key cannot be rotated",
  legacyRotateKey: "Legacy calendar tokens have no rotate key",
  revokedChange: "A revoked key cannot be changed",
} as const;

/** The specification (docs/decisions/authentication.md): only a key whose one scope is `calendar` may be created without expiry. */
export const mayNeverExpire = (scopes: readonly string[]) => scopes.length === 1 && scopes[0] === "calendar";

/**
 * The key by id; with `agencyId` (the dashboard) only if it is that agency's, since another
 * agency's key must look missing. The operator finds any key.
 */
export async function requireKey(db: Db, keyId: string, agencyId?: string) {
  const id = keyId.toLowerCase();
  const key = agencyId === undefined ? await keys.getApiKey(db, id) : await keys.getAgencyApiKey(db, agencyId, id);
  if (!key) throw notFound(keyMessages.notFound);
  return key;
}

const audit =
  (ctx: KeyActionContext, agencyId: string, action: AuditAction, detail: Record<string, unknown>, options: { ifChanged?: boolean } = {}) =>
  (keyId: string) =>
    auditStatement(ctx.db, { agencyId, actor: ctx.actor, action, targetType: "api_key", targetId: keyId, detail }, options);

export interface CreateKeyInput {
  name: string;
  scopes: string[];
  expires: boolean;
  expiresAt?: string;
  rateLimitMultiplier?: number;
}

export async function createKey(ctx: KeyActionContext, agencyId: string, input: CreateKeyInput) {
  if (!input.expires && !mayNeverExpire(input.scopes)) throw badRequest(keyMessages.neverExpires);
  return keys.createApiKey(
    ctx.db,
    ctx.env,
    agencyId,
    input,
    audit(ctx, agencyId, "key.created", { name: input.name, scopes: input.scopes, expires: input.expires }),
  );
}

export async function createLegacyCalendarToken(ctx: KeyActionContext, agencyId: string) {
  return keys.createLegacyCalendarToken(ctx.db, ctx.env, agencyId, audit(ctx, agencyId, "key.created", { name: "Legacy calendar token", scopes: ["calendar"], expires: false }));
}

export interface UpdateKeyInput {
  name?: string;
  scopes?: string[];
  rateLimitMultiplier?: number;
}

/** What an update changes, field by field, for its audit entry. */
function changesOf(key: ApiKeyRow, patch: UpdateKeyInput) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (patch.name !== undefined && patch.name !== key.name) changes.name = { from: key.name, to: patch.name };
  if (patch.scopes !== undefined && JSON.stringify(patch.scopes) !== JSON.stringify(key.scopes)) changes.scopes = { from: key.scopes, to: patch.scopes };
  if (patch.rateLimitMultiplier !== undefined && patch.rateLimitMultiplier !== key.rateLimitMultiplier) {
    changes.rate_limit_multiplier = { from: key.rateLimitMultiplier, to: patch.rateLimitMultiplier };
  }
  return changes;
}

export async function updateKey(ctx: KeyActionContext, key: ApiKeyRow, patch: UpdateKeyInput) {
  // A revoked key stays as it was revoked: its record (name, scopes) is what the audit log refers to.
  if (key.revokedAt) throw badRequest(keyMessages.revokedChange);
  if (patch.scopes) {
    if (key.kind === "legacy_calendar") throw badRequest(keyMessages.legacyScopes);
    // Otherwise an edit would turn a never-expiring calendar key into a never-expiring key of any scope.
    if (!key.expires && !mayNeverExpire(patch.scopes)) throw badRequest(keyMessages.neverExpiringScopes);
  }
  const changes = changesOf(key, patch);
  // Saving a form as it was changes nothing: no write, no audit entry, the key's gate left as it is.
  if (Object.keys(changes).length === 0) return key;
  const updated = await keys.updateApiKey(ctx.db, ctx.env, key.id, patch, audit(ctx, key.agencyId, "key.updated", { name: patch.name ?? key.name, changes }));
  return updated ?? key;
}

/** Revoking a revoked key changes nothing and records nothing; either way the key comes back. */
export async function revokeKey(ctx: KeyActionContext, key: ApiKeyRow) {
  const revoked = await keys.revokeApiKey(ctx.db, ctx.env, key.id, audit(ctx, key.agencyId, "key.revoked", { name: key.name }, { ifChanged: true }));
  return revoked ?? key;
}

export async function rotateSecrets(ctx: KeyActionContext, key: ApiKeyRow) {
  if (key.kind !== "standard") throw badRequest(keyMessages.legacyRotate);
  if (key.revokedAt) throw badRequest(keyMessages.revokedRotate);
  return keys.rotateApiKeySecrets(ctx.db, ctx.env, key, audit(ctx, key.agencyId, "key.secrets_rotated", { name: key.name }));
}

export async function regenerateRotateKey(ctx: KeyActionContext, key: ApiKeyRow) {
  if (key.kind !== "standard") throw badRequest(keyMessages.legacyRotateKey);
  if (key.revokedAt) throw badRequest(keyMessages.revokedChange);
  return keys.regenerateRotateKey(ctx.db, ctx.env, key, audit(ctx, key.agencyId, "key.rotate_key_regenerated", { name: key.name }));
}

import { and, desc, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { createWithDirectoryRecord } from "@/db/directory-records";
import { apiKeys, burnedSecrets, securityEvents } from "@/db/schema";
import type { Env } from "@/env";
import { ACCESS_TOKEN_TTL_DAYS, hashToken, newAccessToken, newLegacyCalendarToken, newRotateKey } from "@/lib/auth/tokens";
import { invalidateKey } from "@/lib/auth/gate";
import { newId } from "@/lib/ids";
import { addDays, nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

type TokenEnv = Pick<Env, "TOKEN_PREFIX" | "TOKEN_PEPPER" | "ACCESS_GATE" | "DB">;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * A statement to run in the same batch as a key's write, directly after it (an audit entry):
 * given the key's id, so a create can name the key it makes.
 */
export type Alongside = (keyId: string) => BatchItem<"sqlite">;

const freshExpiry = (row: Pick<ApiKeyRow, "expires">) =>
  row.expires ? addDays(Date.now(), ACCESS_TOKEN_TTL_DAYS).toISOString() : null;

/** The key's row and its audit entry, with the key's directory row (none left behind when the shard refuses the key). */
const insertKey = (db: Db, env: TokenEnv, row: ApiKeyRow, alongside: Alongside) =>
  createWithDirectoryRecord(env, db, { kind: "api_key", id: row.id, agencyId: row.agencyId }, row.createdAt, () =>
    commit(db, [db.insert(apiKeys).values(row), alongside(row.id)]),
  );

export async function createApiKey(
  db: Db,
  env: TokenEnv,
  agencyId: string,
  input: { name: string; scopes: string[]; expires: boolean; expiresAt?: string; rateLimitMultiplier?: number },
  alongside: Alongside,
) {
  const id = newId();
  const accessToken = newAccessToken(env, id);
  const rotateKey = newRotateKey(env);
  const now = nowIso();
  const row: ApiKeyRow = {
    id,
    agencyId,
    name: input.name,
    kind: "standard",
    scopes: input.scopes,
    accessHash: await hashToken(accessToken, env),
    rotateHash: await hashToken(rotateKey, env),
    expires: input.expires,
    expiresAt: input.expires ? (input.expiresAt ?? freshExpiry({ expires: true })) : null,
    rateLimitMultiplier: input.rateLimitMultiplier ?? 1,
    revokedAt: null,
    renewedAt: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // A token names its key, and the key's gate finds the shard in the directory.
  await insertKey(db, env, row, alongside);
  return { key: row, accessToken, rotateKey };
}

/** Legacy calendar tokens: `calendar` only, never expire, no rotate key, cannot be renewed. */
export async function createLegacyCalendarToken(db: Db, env: TokenEnv, agencyId: string, alongside: Alongside) {
  const id = newId();
  const token = newLegacyCalendarToken(env, id);
  const now = nowIso();
  const row: ApiKeyRow = {
    id,
    agencyId,
    name: "Legacy calendar token",
    kind: "legacy_calendar",
    scopes: ["calendar"],
    accessHash: await hashToken(token, env),
    rotateHash: null,
    expires: false,
    expiresAt: null,
    rateLimitMultiplier: 1,
    revokedAt: null,
    renewedAt: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertKey(db, env, row, alongside);
  return { key: row, token };
}

export const getApiKey = (db: Db, keyId: string) => db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();

/** The key if it belongs to the agency: another agency's key is indistinguishable from a missing one. */
export const getAgencyApiKey = (db: Db, agencyId: string, keyId: string) =>
  db.select().from(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.agencyId, agencyId))).get();

export const listApiKeys = (db: Db, agencyId: string) =>
  db.select().from(apiKeys).where(eq(apiKeys.agencyId, agencyId)).orderBy(desc(apiKeys.createdAt)).all();

export async function updateApiKey(
  db: Db,
  env: TokenEnv,
  keyId: string,
  patch: { name?: string; scopes?: string[]; rateLimitMultiplier?: number },
  alongside: Alongside,
) {
  const [rows] = await commit(db, [
    db
      .update(apiKeys)
      .set({ ...patch, updatedAt: nowIso() })
      .where(eq(apiKeys.id, keyId))
      .returning(),
    alongside(keyId),
  ]);
  await invalidateKey(env, keyId);
  return rows[0];
}

/** `alongside` runs only if this call revoked the key (write it with `ifChanged`). */
export async function revokeApiKey(db: Db, env: TokenEnv, keyId: string, alongside: Alongside) {
  const now = nowIso();
  const [rows] = await commit(db, [
    db
      .update(apiKeys)
      .set({ revokedAt: now, updatedAt: now })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning(),
    alongside(keyId),
  ]);
  await invalidateKey(env, keyId);
  // Undefined when the key was already revoked; the caller already holds that row.
  return rows[0];
}

const burn = (db: Db, keyId: string, hashes: { hash: string | null; kind: "access" | "rotate" }[]) =>
  db
    .insert(burnedSecrets)
    .values(
      hashes
        .filter((h): h is { hash: string; kind: "access" | "rotate" } => h.hash !== null)
        .map((h) => ({ hash: h.hash, kind: h.kind, keyId, burnedAt: nowIso() })),
    )
    .onConflictDoNothing();

/**
 * Renewal as a compare-and-swap: the UPDATE only matches while both old hashes are still
 * current, so of N concurrent renewals with one pair exactly one changes a row.
 */
export async function renewApiKey(db: Db, env: TokenEnv, accessToken: string, rotateKey: string, ip: string) {
  const accessHash = await hashToken(accessToken, env);
  const rotateHash = await hashToken(rotateKey, env);
  const key = await db.select().from(apiKeys).where(eq(apiKeys.accessHash, accessHash)).get();

  if (!key || key.revokedAt || key.kind !== "standard" || key.rotateHash !== rotateHash) {
    await recordReplayIfBurned(db, rotateHash, ip);
    return null;
  }

  const next = { accessToken: newAccessToken(env, key.id), rotateKey: newRotateKey(env) };
  const now = nowIso();
  const expiresAt = freshExpiry(key);
  const [swap] = await commit(db, [
    db
      .update(apiKeys)
      .set({
        accessHash: await hashToken(next.accessToken, env),
        rotateHash: await hashToken(next.rotateKey, env),
        expiresAt,
        renewedAt: now,
        updatedAt: now,
      })
      .where(
        and(
          eq(apiKeys.id, key.id),
          eq(apiKeys.accessHash, accessHash),
          eq(apiKeys.rotateHash, rotateHash),
          isNull(apiKeys.revokedAt),
        ),
      ),
    burn(db, key.id, [
      { hash: accessHash, kind: "access" },
      { hash: rotateHash, kind: "rotate" },
    ]),
  ]);
  if (swap.meta.changes !== 1) return null;
  await invalidateKey(env, key.id);
  return { ...next, expiresAt };
}

async function recordReplayIfBurned(db: Db, rotateHash: string, ip: string) {
  const burned = await db.select().from(burnedSecrets).where(eq(burnedSecrets.hash, rotateHash)).get();
  if (!burned || burned.kind !== "rotate") return;
  const key = await getApiKey(db, burned.keyId);
  await db.insert(securityEvents).values({
    id: newId(),
    agencyId: key?.agencyId ?? null,
    keyId: burned.keyId,
    type: "rotate_key_replay",
    ip,
    detail: "A rotate key that was already used to renew was presented again.",
    createdAt: nowIso(),
  });
}

/** Dashboard "Rotate secrets": both secrets replaced, the old ones stop working at once. */
export async function rotateApiKeySecrets(db: Db, env: TokenEnv, key: ApiKeyRow, alongside: Alongside) {
  const accessToken = newAccessToken(env, key.id);
  const rotateKey = newRotateKey(env);
  const now = nowIso();
  const expiresAt = freshExpiry(key);
  await commit(db, [
    db
      .update(apiKeys)
      .set({
        accessHash: await hashToken(accessToken, env),
        rotateHash: await hashToken(rotateKey, env),
        expiresAt,
        renewedAt: now,
        updatedAt: now,
      })
      .where(eq(apiKeys.id, key.id)),
    alongside(key.id),
    burn(db, key.id, [
      { hash: key.accessHash, kind: "access" },
      { hash: key.rotateHash, kind: "rotate" },
    ]),
  ]);
  await invalidateKey(env, key.id);
  return { accessToken, rotateKey, expiresAt };
}

/** Dashboard "Regenerate rotate key": the access token keeps working, the old rotate key does not. */
export async function regenerateRotateKey(db: Db, env: TokenEnv, key: ApiKeyRow, alongside: Alongside) {
  const rotateKey = newRotateKey(env);
  await commit(db, [
    db
      .update(apiKeys)
      .set({ rotateHash: await hashToken(rotateKey, env), updatedAt: nowIso() })
      .where(eq(apiKeys.id, key.id)),
    alongside(key.id),
    burn(db, key.id, [{ hash: key.rotateHash, kind: "rotate" }]),
  ]);
  return { rotateKey };
}

export const listSecurityEvents = (db: Db, keyId: string) =>
  db.select().from(securityEvents).where(eq(securityEvents.keyId, keyId)).orderBy(desc(securityEvents.createdAt)).all();

import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, burnedSecrets, securityEvents } from "@/db/schema";
import type { Env } from "@/env";
import { ACCESS_TOKEN_TTL_DAYS, hashToken, newAccessToken, newLegacyCalendarToken, newRotateKey } from "@/lib/auth/tokens";
import { invalidateKey } from "@/lib/auth/gate";
import { newId } from "@/lib/ids";
import { addDays, nowIso } from "@/lib/time";

type TokenEnv = Pick<Env, "TOKEN_PREFIX" | "TOKEN_PEPPER" | "ACCESS_GATE">;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

const freshExpiry = (row: Pick<ApiKeyRow, "expires">) =>
  row.expires ? addDays(Date.now(), ACCESS_TOKEN_TTL_DAYS).toISOString() : null;

export async function createApiKey(
  db: Db,
  env: TokenEnv,
  agencyId: string,
  input: { name: string; scopes: string[]; expires: boolean; expiresAt?: string; rateLimitMultiplier?: number },
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
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(apiKeys).values(row);
  return { key: row, accessToken, rotateKey };
}

/** Legacy calendar tokens: `calendar` only, never expire, no rotate key, cannot be renewed. */
export async function createLegacyCalendarToken(db: Db, env: TokenEnv, agencyId: string) {
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
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(apiKeys).values(row);
  return { key: row, token };
}

export const getApiKey = (db: Db, keyId: string) => db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();

export const listApiKeys = (db: Db, agencyId: string) =>
  db.select().from(apiKeys).where(eq(apiKeys.agencyId, agencyId)).orderBy(desc(apiKeys.createdAt)).all();

export async function updateApiKey(
  db: Db,
  env: TokenEnv,
  keyId: string,
  patch: { name?: string; scopes?: string[]; rateLimitMultiplier?: number },
) {
  const [row] = await db
    .update(apiKeys)
    .set({ ...patch, updatedAt: nowIso() })
    .where(eq(apiKeys.id, keyId))
    .returning();
  await invalidateKey(env, keyId);
  return row;
}

export async function revokeApiKey(db: Db, env: TokenEnv, keyId: string) {
  const now = nowIso();
  // Undefined when the key was already revoked; the caller already holds that row.
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  await invalidateKey(env, keyId);
  return revoked;
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
  const [swap] = await db.batch([
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
export async function rotateApiKeySecrets(db: Db, env: TokenEnv, key: ApiKeyRow) {
  const accessToken = newAccessToken(env, key.id);
  const rotateKey = newRotateKey(env);
  const now = nowIso();
  const expiresAt = freshExpiry(key);
  await db.batch([
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
    burn(db, key.id, [
      { hash: key.accessHash, kind: "access" },
      { hash: key.rotateHash, kind: "rotate" },
    ]),
  ]);
  await invalidateKey(env, key.id);
  return { accessToken, rotateKey, expiresAt };
}

/** Dashboard "Regenerate rotate key": the access token keeps working, the old rotate key does not. */
export async function regenerateRotateKey(db: Db, env: TokenEnv, key: ApiKeyRow) {
  const rotateKey = newRotateKey(env);
  await db.batch([
    db
      .update(apiKeys)
      .set({ rotateHash: await hashToken(rotateKey, env), updatedAt: nowIso() })
      .where(eq(apiKeys.id, key.id)),
    burn(db, key.id, [{ hash: key.rotateHash, kind: "rotate" }]),
  ]);
  return { rotateKey };
}

export const listSecurityEvents = (db: Db, keyId: string) =>
  db.select().from(securityEvents).where(eq(securityEvents.keyId, keyId)).orderBy(desc(securityEvents.createdAt)).all();

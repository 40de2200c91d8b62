import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

/**
 * One row per API key. Only SHA-256 hashes of the secrets are stored. `kind` separates
 * ordinary keys from legacy calendar tokens, which never expire and cannot be renewed.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["standard", "legacy_calendar"] }).notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    accessHash: text("access_hash").notNull(),
    rotateHash: text("rotate_hash"),
    expiresAt: timestamp("expires_at"),
    expires: integer("expires", { mode: "boolean" }).notNull(),
    rateLimitMultiplier: real("rate_limit_multiplier").notNull().default(1),
    revokedAt: timestamp("revoked_at"),
    renewedAt: timestamp("renewed_at"),
    /** Written behind by the key's AccessGate, at most once a minute: up to a minute stale. */
    lastUsedAt: timestamp("last_used_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("api_keys_access_hash_unique").on(t.accessHash),
    uniqueIndex("api_keys_rotate_hash_unique").on(t.rotateHash).where(sql.raw("rotate_hash IS NOT NULL")),
    index("api_keys_agency_idx").on(t.agencyId),
  ],
);

/**
 * Secrets that were burned by a renewal or rotation. A later attempt to use one is a
 * replay and is recorded as a security event.
 */
export const burnedSecrets = sqliteTable("burned_secrets", {
  hash: text("hash").primaryKey(),
  keyId: text("key_id").notNull(),
  kind: text("kind", { enum: ["access", "rotate"] }).notNull(),
  burnedAt: timestamp("burned_at").notNull(),
});

export const securityEvents = sqliteTable(
  "security_events",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id"),
    keyId: text("key_id"),
    type: text("type").notNull(),
    ip: text("ip"),
    detail: text("detail"),
    createdAt: createdAt(),
  },
  (t) => [index("security_events_key_idx").on(t.keyId, t.createdAt)],
);

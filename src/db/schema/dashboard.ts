import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp } from "./columns";
import { members } from "./members";

/**
 * One-time sign-in links to the agency dashboard (docs/decisions/dashboard.md). Only the hash of
 * the link's secret is stored; opening the link sets `used_at` with a conditional UPDATE, so a
 * link starts at most one session however many times it is opened at once.
 */
export const dashboardLinks = sqliteTable(
  "dashboard_links",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id),
    expiresAt: timestamp("expires_at").notNull(),
    usedAt: timestamp("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("dashboard_links_token_hash_unique").on(t.tokenHash)],
);

/**
 * Dashboard sessions. The cookie holds a random secret; only its hash is stored. `csrf_token` is
 * the session's synchronizer token, echoed by every form. Whether the member may still sign in
 * (live, owner or admin) is not copied here: every request joins `members`, so removing or
 * demoting a member ends their sessions at once.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    secretHash: text("secret_hash").notNull(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
    endedAt: timestamp("ended_at"),
  },
  (t) => [uniqueIndex("dashboard_sessions_secret_hash_unique").on(t.secretHash)],
);

export const auditActorTypes = ["member", "operator", "api_key", "app_grant"] as const;

/**
 * Who changed an agency's keys and webhook endpoints, and how: written by the one implementation
 * of each action, in the same batch as the change, whichever door it came through (the
 * dashboard, the operator API, the Partner API).
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    actorType: text("actor_type", { enum: auditActorTypes }).notNull(),
    /** The member (actor `member`), API key (actor `api_key`) or connected app's grant (actor `app_grant`); null for the operator. */
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_agency_created_idx").on(t.agencyId, t.createdAt)],
);

import { index, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

/**
 * Apps and agents an agency connected through OAuth (docs/decisions/connected-apps.md). The
 * protocol's own records (clients, codes, tokens, the grant's encrypted props) live in the
 * `OAUTH_KV` namespace, kept by @cloudflare/workers-oauth-provider; this row is the agency's
 * view of a grant: who approved it, what it may do, when it was last used, and whether it was
 * revoked. It is written when the app first exchanges its code, in the batch of its
 * `app.authorized` event, and moves with the agency like every other record.
 */
export const appGrants = sqliteTable(
  "app_grants",
  {
    /** The provider's grant id (16 characters), also inside every token of the grant. */
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    clientId: text("client_id").notNull(),
    /** The app's name when it was approved: self-asserted unless `client_domain` is set. */
    clientName: text("client_name").notNull(),
    /** The host of a Client ID Metadata Document client's id, a domain the app controls; null for registered clients. */
    clientDomain: text("client_domain"),
    /** Where the app receives its codes: the host the consent page named. */
    redirectHost: text("redirect_host").notNull(),
    /** The resource the grant's tokens are for: the Partner API, or its MCP server. */
    resource: text("resource").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** The owner or admin who approved it. */
    grantedBy: text("granted_by").notNull(),
    /** Set by the operator for a high-volume app, as for a key: scales every rate limit of the grant. */
    rateLimitMultiplier: real("rate_limit_multiplier").notNull().default(1),
    /** Written behind by the grant's AccessGate, at most once a minute: up to a minute stale. */
    lastUsedAt: timestamp("last_used_at"),
    revokedAt: timestamp("revoked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("app_grants_agency_created_idx").on(t.agencyId, t.createdAt, t.id)],
);

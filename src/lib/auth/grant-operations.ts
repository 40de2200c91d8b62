import { createDb, type Db } from "@/db/client";
import { agencyLocation, shardDatabase } from "@/db/shards";
import type { Env } from "@/env";
import type { Actor } from "@/lib/audit/audit-log";
import { notFound } from "@/lib/errors";
import { createLogger } from "@/lib/logger";
import { publishWritten } from "@/lib/webhooks/publish";
import { getAgencyGrant, markGrantRevoked, setGrantMultiplier, type AppGrantRow } from "./app-grants.repository";
import { grantGate } from "./gate";
import { oauthApi } from "./oauth-server";
import { oauthTokenParts } from "./tokens";

/**
 * The one implementation of revoking a connected app (docs/decisions/connected-apps.md): the
 * dashboard, the operator API and the app itself (RFC 7009 at the token endpoint) all end here,
 * so each revocation refuses the grant's tokens from the very next request and writes its
 * `app.revoked` event.
 */

export const grantMessages = { notFound: "Connected app not found" } as const;

/** The agency's grant by id, or the 404 of one that is missing or another agency's. */
export async function requireGrant(db: Db, agencyId: string, grantId: string): Promise<AppGrantRow> {
  const grant = await getAgencyGrant(db, agencyId, grantId);
  if (!grant) throw notFound(grantMessages.notFound);
  return grant;
}

/** The issuer a grant's tokens came from: the origin of its resource (lib/auth/oauth-server.ts). */
const issuerOfGrant = (grant: AppGrantRow) => new URL(grant.resource).origin;

/**
 * Revokes a grant, in the order that makes it hold at once: its gate first (the next request
 * is refused, whatever any copy of the OAuth records says), then the library's records (no
 * refresh works any more), then the agency's row and event. Each step is safe to repeat, so a
 * revocation cut short (a move's 503) completes when retried. Revoking a revoked grant changes
 * nothing and records nothing.
 */
export async function revokeGrant(ctx: { db: Db; env: Env; actor: Actor }, grant: AppGrantRow): Promise<AppGrantRow> {
  if (grant.revokedAt) return grant;
  await grantGate(ctx.env, grant.id).revoke();
  await oauthApi(ctx.env, issuerOfGrant(grant)).revokeGrant(grant.id, grant.agencyId);
  return markGrantRevoked(ctx.db, grant, ctx.actor);
}

/** Scales a grant's rate limits (a high-volume app, a benchmark); its gate applies it from the next request. */
export async function setGrantRateLimit(ctx: { db: Db; env: Env }, grant: AppGrantRow, multiplier: number): Promise<AppGrantRow> {
  const updated = await setGrantMultiplier(ctx.db, grant, multiplier);
  await grantGate(ctx.env, grant.id).invalidate();
  return updated;
}

/** Whether the OAuth library still holds the grant (a client's revocation of its refresh token deletes it). */
async function grantExists(env: Env, issuer: string, agencyId: string, grantId: string): Promise<boolean> {
  const api = oauthApi(env, issuer);
  let cursor: string | undefined;
  do {
    const page = await api.listUserGrants(agencyId, { limit: 1000, ...(cursor ? { cursor } : {}) });
    if (page.items.some((g) => g.id === grantId)) return true;
    cursor = page.cursor;
  } while (cursor);
  return false;
}

/**
 * After the token endpoint ended some of a grant's tokens on its own: the app revoked one (RFC
 * 7009), or a code was replayed, which makes the library revoke the whole grant. The grant's
 * gate forgets the tokens it checked, so an ended access token is refused on its next request;
 * and when the grant itself is gone from the library's records, the agency's row is marked
 * revoked with its `app.revoked` event, as the app's own doing. `credential`: the token or code
 * the request named.
 */
export async function reconcileGrant(env: Env, issuer: string, credential: string): Promise<void> {
  const parts = oauthTokenParts(credential);
  if (!parts) return;
  await grantGate(env, parts.grantId).invalidate();
  if (await grantExists(env, issuer, parts.agencyId, parts.grantId)) return;
  const location = await agencyLocation(env, parts.agencyId);
  if (!location) return;
  const db = createDb(shardDatabase(env, location.shard));
  const grant = await getAgencyGrant(db, parts.agencyId, parts.grantId);
  if (!grant || grant.revokedAt) return;
  await grantGate(env, grant.id).revoke();
  await markGrantRevoked(db, grant, { type: "app_grant", grantId: grant.id });
  await publishWritten(db, env.WEBHOOK_QUEUE, createLogger({ grant_id: grant.id }, env.LOG_LEVEL));
}

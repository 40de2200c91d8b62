import type { Db } from "@/db/client";
import { agencyDb } from "@/db/shards";
import type { Env } from "@/env";
import type { Actor } from "@/domain/audit/audit-log";
import { notFound } from "@/lib/errors";
import { getAgencyGrant, markGrantRevoked, publishGrantEvents, setGrantMultiplier, type AppGrantRow } from "./app-grants.repository";
import { grantGate } from "@/lib/auth/gate";
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS, oauthApi } from "./oauth-server";
import { oauthTokenParts } from "@/lib/auth/tokens";

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

/** The issuer a grant's tokens came from: the origin of its resource (domain/auth/oauth-server.ts). */
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

/**
 * Whether the OAuth library still holds the grant: its record, read by its key in the library's
 * documented KV layout (`grant:<user id>:<grant id>`), one read rather than a listing of the
 * agency's grants, and as fresh as KV serves a key written in this location.
 */
const grantRecordExists = async (env: Env, parts: { agencyId: string; grantId: string }) =>
  (await env.OAUTH_KV.get(`grant:${parts.agencyId}:${parts.grantId}`)) !== null;

/** The agency's live row of the grant a token or code names, with its database; undefined when there is none. */
async function liveGrantOf(env: Env, credential: string): Promise<{ db: Db; grant: AppGrantRow } | undefined> {
  const parts = oauthTokenParts(credential);
  const home = parts ? await agencyDb(env, parts.agencyId) : undefined;
  if (!parts || !home) return undefined;
  const { db } = home;
  const grant = await getAgencyGrant(db, parts.agencyId, parts.grantId);
  return grant && !grant.revokedAt ? { db, grant } : undefined;
}

/** Ends a grant as its app's own doing: its gate first (refused from the next request), then the row and `app.revoked`. */
async function endGrant(env: Env, { db, grant }: { db: Db; grant: AppGrantRow }) {
  await grantGate(env, grant.id).revoke();
  await markGrantRevoked(db, grant, { type: "app_grant", grantId: grant.id });
  await publishGrantEvents(env, db, grant.id);
}

/**
 * After an app revoked a token at the token endpoint (RFC 7009), which the library answers 200
 * whatever the token was: when that ended the grant (its refresh token), the grant ends here too;
 * when it ended one access token, the grant's gate refuses that token from its next request.
 * A token of no live grant of ours, or one the library did not end, changes nothing.
 */
export async function afterTokenRevocation(env: Env, issuer: string, token: string): Promise<void> {
  const found = await liveGrantOf(env, token);
  if (!found) return;
  const parts = { agencyId: found.grant.agencyId, grantId: found.grant.id };
  if (!(await grantRecordExists(env, parts))) return endGrant(env, found);
  if ((await oauthApi(env, issuer).unwrapToken(token)) !== null) return;
  await grantGate(env, found.grant.id).endToken(token, Date.now() + OAUTH_ACCESS_TOKEN_TTL_SECONDS * 1000);
}

/**
 * After a code exchange. A code used twice ends its grant (OAuth 2.1 §4.1.3: its tokens may be in
 * a thief's hands): the library revokes its records, the grant's gate (which refused the second
 * claim, or is told here) every token of it, and the row is marked. An exchange that got tokens
 * checks too, since a second exchange of its code may have ended the grant while it ran.
 */
export async function afterCodeExchange(env: Env, code: string, outcome: "tokens" | "code_reused"): Promise<void> {
  const parts = oauthTokenParts(code);
  if (!parts) return;
  const gate = grantGate(env, parts.grantId);
  if (outcome === "code_reused") await gate.revoke();
  else if (!(await gate.isRevoked())) return;
  const found = await liveGrantOf(env, code);
  if (found) await endGrant(env, found);
}

import { hashSecret, randomSecret } from "@/lib/crypto";
import type { Env } from "@/env";

export const ACCESS_TOKEN_TTL_DAYS = 30;
/** Longest bearer value we bother hashing; anything longer cannot be one of ours. */
export const MAX_TOKEN_LENGTH = 256;

const prefixOf = (env: Pick<Env, "TOKEN_PREFIX">) => env.TOKEN_PREFIX || "pa";

const compactId = (uuid: string) => uuid.replaceAll("-", "").toLowerCase();

/**
 * `<prefix>_<key id: 32 hex><secret: 256 random bits, 43 base64url>`. The key id in the clear
 * lets the Worker route the request to the key's Durable Object, which authenticates and
 * rate-limits in one call; the secret part is what the stored hash protects.
 */
export const newAccessToken = (env: Pick<Env, "TOKEN_PREFIX">, keyId: string) =>
  `${prefixOf(env)}_${compactId(keyId)}${randomSecret()}`;
/** `<prefix>r_<256 random bits>`, a one-time secret used only to renew. */
export const newRotateKey = (env: Pick<Env, "TOKEN_PREFIX">) => `${prefixOf(env)}r_${randomSecret()}`;
/** Legacy calendar tokens carry their own prefix, `<prefix>cal_`, and never expire. */
export const newLegacyCalendarToken = (env: Pick<Env, "TOKEN_PREFIX">, keyId: string) =>
  `${prefixOf(env)}cal_${compactId(keyId)}${randomSecret()}`;

/**
 * A secret that names its agency, as an access token names its key: `<agency id: 32 hex><256
 * random bits, 43 base64url>`. Dashboard sign-in links and session cookies are of this shape, so
 * the Worker finds the agency's shard in the directory before it looks the secret up there.
 */
export const newAgencySecret = (agencyId: string) => `${compactId(agencyId)}${randomSecret()}`;

export const AGENCY_SECRET_SHAPE = /^([0-9a-f]{32})[A-Za-z0-9_-]{43}$/;

/** The agency id inside such a secret, or null when the value is not of that shape. */
export function agencyIdOfSecret(value: string): string | null {
  const hex = AGENCY_SECRET_SHAPE.exec(value)?.[1];
  return hex ? uuidOf(hex) : null;
}

const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The key id inside an access or legacy token, or null when the token is not of our shape. */
export function keyIdOf(token: string, env: Pick<Env, "TOKEN_PREFIX">): string | null {
  const prefix = prefixOf(env);
  if (!token.startsWith(prefix)) return null;
  const match = /^(?:_|cal_)([0-9a-f]{32})[A-Za-z0-9_-]{43}$/.exec(token.slice(prefix.length));
  const hex = match?.[1];
  return hex ? uuidOf(hex) : null;
}

export const hashToken = (token: string, env: Pick<Env, "TOKEN_PEPPER">) => hashSecret(token, env.TOKEN_PEPPER);

/** Parses `Authorization: Bearer <token>`; anything else is no token at all. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return null;
  return token;
}

/**
 * An OAuth token of a connected app, as @cloudflare/workers-oauth-provider issues it:
 * `<user id>:<grant id: 16 characters>:<secret: 32 characters>`, our user id being the agency's
 * (docs/decisions/connected-apps.md). The grant id in the clear lets the Worker route the request
 * to the grant's AccessGate, as an API key's id does.
 */
const OAUTH_TOKEN_SHAPE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([A-Za-z0-9_-]{16}):[A-Za-z0-9_-]{32}$/;

/** A grant's id as the OAuth library writes it: 16 characters of base64url. */
export const GRANT_ID_PATTERN = /^[A-Za-z0-9_-]{16}$/;

/** The agency and grant an OAuth token names, or null when the value is not of that shape. */
export function oauthTokenParts(token: string): { agencyId: string; grantId: string } | null {
  const match = OAUTH_TOKEN_SHAPE.exec(token);
  return match ? { agencyId: match[1]!, grantId: match[2]! } : null;
}

/** Whose token a bearer value is: an API key's (or legacy calendar token's), or a connected app's grant. */
export type Credential = { type: "api_key"; keyId: string } | { type: "app_grant"; grantId: string; agencyId: string };

/** The credential a bearer value names, or null when it is none of ours. */
export function credentialOf(token: string, env: Pick<Env, "TOKEN_PREFIX">): Credential | null {
  const keyId = keyIdOf(token, env);
  if (keyId) return { type: "api_key", keyId };
  const grant = oauthTokenParts(token);
  return grant ? { type: "app_grant", ...grant } : null;
}

import { hashSecret, randomSecret } from "@/lib/crypto";
import type { Env } from "@/env";

export const ACCESS_TOKEN_TTL_DAYS = 30;
/** Longest bearer value we bother hashing; anything longer cannot be one of ours. */
export const MAX_TOKEN_LENGTH = 256;

const prefixOf = (env: Pick<Env, "TOKEN_PREFIX">) => env.TOKEN_PREFIX || "pa";

/** `<prefix>_<256 random bits>`, used on every request. */
export const newAccessToken = (env: Pick<Env, "TOKEN_PREFIX">) => `${prefixOf(env)}_${randomSecret()}`;
/** `<prefix>r_<256 random bits>`, a one-time secret used only to renew. */
export const newRotateKey = (env: Pick<Env, "TOKEN_PREFIX">) => `${prefixOf(env)}r_${randomSecret()}`;
/** Legacy calendar tokens predate the prefixed format; they keep their own. */
export const newLegacyCalendarToken = (env: Pick<Env, "TOKEN_PREFIX">) => `${prefixOf(env)}cal_${randomSecret()}`;

export const hashToken = (token: string, env: Pick<Env, "TOKEN_PEPPER">) => hashSecret(token, env.TOKEN_PEPPER);

/** Parses `Authorization: Bearer <token>`; anything else is no token at all. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return null;
  return token;
}

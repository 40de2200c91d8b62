import type { Env } from "@/env";
import { ApiError } from "@/lib/errors";

/**
 * TOKEN_PEPPER keys every token hash and seals every list cursor (docs/decisions/security-posture.md,
 * "A deployment without TOKEN_PEPPER serves nothing"). Without it a cursor would be sealed with a
 * hash anyone can recompute, so the Worker fails closed instead: every request that is not a
 * provider callback answers 503 `not_configured` with this message, which tells the operator what
 * to set.
 */
export const tokenPepperMessages = {
  missing:
    "This deployment is not configured: the TOKEN_PEPPER secret is not set, so it serves no request. " +
    "Its operator must set it (`npx wrangler secret put TOKEN_PEPPER`; `npm run dev` writes one into .dev.vars): see docs/operations.md, Deploying.",
} as const;

/** Whether a pepper is configured: an empty or blank value is none. */
export const hasTokenPepper = (env: Pick<Env, "TOKEN_PEPPER">) => (env.TOKEN_PEPPER ?? "").trim() !== "";

export const tokenPepperMissing = () => new ApiError("not_configured", tokenPepperMessages.missing);

/** The pepper, for what must never be sealed without a secret (cursors); 503 `not_configured` without one. */
export function requiredTokenPepper(env: Pick<Env, "TOKEN_PEPPER">): string {
  if (!hasTokenPepper(env)) throw tokenPepperMissing();
  return env.TOKEN_PEPPER!;
}

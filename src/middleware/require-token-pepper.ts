import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "@/lib/context";
import { hasTokenPepper, tokenPepperMessages, tokenPepperMissing } from "@/lib/token-pepper";

/**
 * Fails closed without TOKEN_PEPPER (docs/decisions/security-posture.md): every request answers
 * 503 `not_configured` naming the secret to set, before any route, so a deployment missing it
 * is noticed at its first request, before a key is hashed or a cursor sealed without a secret.
 * `exempt` paths are still served: provider callbacks, which use no secret of ours and which
 * Twilio does not send again (an inbound STOP must not be lost to a missing pepper).
 */
export const requireTokenPepper =
  (exempt: (path: string) => boolean): MiddlewareHandler<AppBindings> =>
  async (c, next) => {
    if (hasTokenPepper(c.env) || exempt(c.req.path)) return next();
    c.var.logger?.error("refused: TOKEN_PEPPER is not set", { hint: tokenPepperMessages.missing });
    throw tokenPepperMissing();
  };

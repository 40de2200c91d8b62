import { z } from "@hono/zod-openapi";
import { instantString } from "@/lib/bounded";
import { MAX_TOKEN_LENGTH } from "@/lib/auth/tokens";

export const RenewTokenBody = z
  .strictObject({
    access_token: z.string().min(1).max(MAX_TOKEN_LENGTH).openapi({ description: "The current access token, valid or expired." }),
    rotate_key: z.string().min(1).max(MAX_TOKEN_LENGTH).openapi({ description: "The unused one-time rotate key." }),
  })
  .openapi("RenewTokenRequest", {
    example: { access_token: "pa_5pZ0m3Yq...", rotate_key: "par_Qm8v1Lr..." },
  });

export const RenewTokenResponse = z
  .object({
    success: z.literal(true),
    // `<TOKEN_PREFIX>_` and 75 characters (src/lib/auth/tokens.ts); a token only works within
    // MAX_TOKEN_LENGTH (longer bearer values and renewal inputs are refused), which the short
    // configured prefix leaves far below.
    access_token: z.string().max(MAX_TOKEN_LENGTH).openapi({ description: "The new access token. Store it: it is shown once." }),
    rotate_key: z.string().max(MAX_TOKEN_LENGTH).openapi({ description: "The new one-time rotate key. Store it: it is shown once." }),
    expires_at: instantString()
      .nullable()
      .openapi({ description: "When the new access token expires (30 days from now); null for a non-expiring calendar key." }),
  })
  .openapi("RenewTokenResponse", {
    example: {
      success: true,
      access_token: "pa_h8Tn2xWc...",
      rotate_key: "par_Vb7kq0Pz...",
      expires_at: "2026-12-21T14:05:00.000Z",
    },
  });

import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MAX_JSON_DEPTH } from "@/lib/json-depth";

/** Stable machine codes in the error envelope, with the status each one answers with. */
export const errorStatus = {
  validation_error: 400,
  /** A `cursor` that is not one this API gave for this same list and filters (docs/decisions/lists-and-bulk.md). */
  invalid_cursor: 400,
  idempotency_key_mismatch: 400,
  invalid_token: 401,
  token_expired: 401,
  insufficient_funds: 402,
  insufficient_scope: 403,
  /** A provider callback whose signature or secret does not check out (docs/decisions/real-providers.md). */
  invalid_signature: 403,
  not_found: 404,
  conflict: 409,
  /** An SMS to a phone number that is opted out (docs/decisions/sms-opt-out.md). */
  sms_opt_out: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  /** A write of an agency that is being moved to another shard (docs/decisions/shards-and-moves.md). */
  agency_moving: 503,
  /** A deployment missing a secret it cannot run without, such as TOKEN_PEPPER (docs/decisions/security-posture.md). */
  not_configured: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  success: false;
  error: string;
  code: ErrorCode;
  details?: { field: string; message: string }[];
  request_id?: string;
}

/**
 * Limits of what an error echoes back. Messages can quote input (an unknown field's name, a
 * custom field key), so a large body must not buy a large error: longer text is cut with an
 * ellipsis and only the first problems are listed.
 */
export const ERROR_LIMITS = { message: 1000, field: 200, details: 50 } as const;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The one error type of the API: thrown anywhere, rendered by `onError` as the envelope (docs/decisions/response-conventions.md). */
export class ApiError extends HTTPException {
  readonly code: ErrorCode;
  readonly details?: ErrorBody["details"];
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorBody["details"]; headers?: Record<string, string> } = {},
  ) {
    super(errorStatus[code], { message });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  body(): ErrorBody {
    return {
      success: false,
      error: clip(this.message, ERROR_LIMITS.message),
      code: this.code,
      ...(this.details
        ? {
            details: this.details
              .slice(0, ERROR_LIMITS.details)
              .map((d) => ({ field: clip(d.field, ERROR_LIMITS.field), message: clip(d.message, ERROR_LIMITS.message) })),
          }
        : {}),
    };
  }
}

export const badRequest = (message: string, details?: ErrorBody["details"]) =>
  new ApiError("validation_error", message, { details });
export const notFound = (message: string) => new ApiError("not_found", message);
export const conflict = (message: string) => new ApiError("conflict", message);

export const messages = {
  invalidToken: "Invalid or missing token",
  tokenExpired: "Access token has expired. Renew it with POST /api/v2/auth/token/renew.",
  oauthTokenExpired: "Access token has expired. Get a new one from POST /oauth/token with your refresh token (grant_type=refresh_token).",
  missingScope: (scope: string) => `Token missing required scope: ${scope}`,
  invalidRenewal: "Invalid access token or rotate key",
  invalidDateFormat: "Invalid date range. Use YYYY-MM-DD for from and to.",
  invalidDateSpan: "Date range must be between 1 and 90 days inclusive.",
  idempotencyInProgress: "A request with this Idempotency-Key is in progress; retry shortly",
  idempotencyMismatch: "Idempotency-Key was already used with a different request; use a new key for a new request",
  rateLimited: "Rate limit exceeded. Retry after the number of seconds in the Retry-After header.",
  payloadTooLarge: "Request body must not exceed 1 MiB (1,048,576 bytes)",
  jsonTooDeep: `JSON body must not nest deeper than ${MAX_JSON_DEPTH} levels`,
  routeNotFound: "Route not found",
  internal: "Internal server error",
} as const;

export const invalidToken = () => new ApiError("invalid_token", messages.invalidToken);

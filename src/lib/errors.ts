import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Stable machine codes in the error envelope, with the status each one answers with. */
export const errorStatus = {
  validation_error: 400,
  idempotency_key_mismatch: 400,
  invalid_token: 401,
  token_expired: 401,
  insufficient_funds: 402,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  idempotency_in_progress: 409,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  success: false;
  error: string;
  code: ErrorCode;
  details?: { field: string; message: string }[];
  request_id?: string;
}

/** The one error type of the API: thrown anywhere, rendered by `onError` as the SPEC envelope. */
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
      error: this.message,
      code: this.code,
      ...(this.details ? { details: this.details } : {}),
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
  missingScope: (scope: string) => `Token missing required scope: ${scope}`,
  invalidRenewal: "Invalid access token or rotate key",
  invalidDateFormat: "Invalid date range. Use YYYY-MM-DD for from and to.",
  invalidDateSpan: "Date range must be between 1 and 90 days inclusive.",
  idempotencyInProgress: "A request with this Idempotency-Key is in progress; retry shortly",
  idempotencyMismatch: "Idempotency-Key was already used with a different request; use a new key for a new request",
  rateLimited: "Rate limit exceeded. Retry after the number of seconds in the Retry-After header.",
  routeNotFound: "Route not found",
  internal: "Internal server error",
} as const;

export const invalidToken = () => new ApiError("invalid_token", messages.invalidToken);

/**
 * Every failure the SDK reports is a PartnerApiError. An answer of the API becomes the
 * subclass of its status, carrying the envelope's `code` and message and the request id to
 * quote to support; a request that never got an answer is a ConnectionError.
 */
export class PartnerApiError extends Error {
  override name = "PartnerApiError";
  /** HTTP status; 0 when no answer came (ConnectionError). */
  readonly status: number;
  /** The envelope's machine-readable code, e.g. `validation_error`, `rate_limited`. */
  readonly code: string;
  /** `X-Request-Id` of the answer, for support. */
  readonly requestId: string | undefined;
  /** Per-field problems of a 400, when the API names them. */
  readonly details: ReadonlyArray<{ field: string; message: string }>;
  /** Seconds the API asked to wait (429 and 503), from Retry-After. */
  readonly retryAfter: number | undefined;
  /** The parsed answer body, or its text when it was not JSON. */
  readonly body: unknown;

  constructor(init: {
    message: string;
    status: number;
    code: string;
    requestId?: string | undefined;
    details?: ReadonlyArray<{ field: string; message: string }>;
    retryAfter?: number | undefined;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }
}

/** 400: the request's parameters or body (see `details`), a bad cursor, a mismatched Idempotency-Key. */
export class ValidationError extends PartnerApiError {
  override name = "ValidationError";
}
/** 401: no token, an unknown or revoked one, or an expired one that could not be renewed. */
export class AuthenticationError extends PartnerApiError {
  override name = "AuthenticationError";
}
/** 403: the key lacks the scope of the route. */
export class PermissionError extends PartnerApiError {
  override name = "PermissionError";
}
/** 404: no such record in the key's agency. */
export class NotFoundError extends PartnerApiError {
  override name = "NotFoundError";
}
/** 409: the record conflicts with another (a duplicate, a booked slot, a state that forbids it). */
export class ConflictError extends PartnerApiError {
  override name = "ConflictError";
}
/** 429 after the retries: the key's rate limit for this route is used up; see `retryAfter`. */
export class RateLimitError extends PartnerApiError {
  override name = "RateLimitError";
}
/** 5xx after the retries (a 503 while an agency moves between databases is retried first). */
export class ServerError extends PartnerApiError {
  override name = "ServerError";
}
/** No answer: the network failed, after the retries. (An aborted request rejects with its signal's reason.) */
export class ConnectionError extends PartnerApiError {
  override name = "ConnectionError";
}

const classByStatus: Record<number, typeof PartnerApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

interface Envelope {
  error?: unknown;
  code?: unknown;
  details?: unknown;
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("Retry-After");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** The typed error of a non-2xx answer whose body was already parsed. */
export function errorFromResponse(response: Response, body: unknown): PartnerApiError {
  const envelope: Envelope = typeof body === "object" && body !== null ? (body as Envelope) : {};
  const ErrorClass = classByStatus[response.status] ?? (response.status >= 500 ? ServerError : PartnerApiError);
  const details = Array.isArray(envelope.details) ? (envelope.details as Array<{ field: string; message: string }>) : [];
  return new ErrorClass({
    message: typeof envelope.error === "string" ? envelope.error : `HTTP ${response.status}`,
    status: response.status,
    code: typeof envelope.code === "string" ? envelope.code : `http_${response.status}`,
    requestId: response.headers.get("X-Request-Id") ?? undefined,
    details,
    retryAfter: retryAfterSeconds(response.headers),
    body,
  });
}

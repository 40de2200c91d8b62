/**
 * The rate-limit table (docs/decisions/rate-limits.md), in one place. Limits are per minute, per
 * key (per client IP when there is no key identity), and keyed by method plus route pattern, so
 * `GET /contacts/{contact_uuid}` is one bucket for every contact.
 */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

const byRoute: Record<string, number> = {
  "POST /auth/token/renew": 10,
  "DELETE /contacts/{contact_uuid}": 10,
  "POST /contacts/bulk": 10,
  "POST /appointments/{appointment_uuid}/cancel": 10,
  "PATCH /users/{agent_uuid}/role": 10,
  "DELETE /users/{agent_uuid}": 10,
  "POST /calendar/bookings": 20,
  "PATCH /lead-orders/{order_uuid}": 10,
  "POST /lead-orders/{order_uuid}/pause": 10,
  "POST /lead-orders/{order_uuid}/cancel": 10,
  "POST /voice-ai/calls": 10,
  "POST /voice-ai/calls/{call_uuid}/cancel": 10,
  "GET /voice-ai/wallet": 30,
  "POST /webhook-endpoints/{webhook_endpoint_uuid}/test": 10,
  "POST /webhook-endpoints/{webhook_endpoint_uuid}/rotate-secret": 10,
  "POST /events/{event_uuid}/redeliver": 10,
  // Provider callbacks that fail their signature or secret check, per client IP (a verified
  // callback is never counted: docs/decisions/real-providers.md). A genuine provider fails only
  // when misconfigured, so this only has to slow a flood.
  "POST /providers/twilio/sms": 60,
  "POST /providers/twilio/status": 60,
  "POST /providers/vapi/events": 60,
};

const byMethod: Record<string, number> = { GET: 60, POST: 30, PUT: 30, PATCH: 30, DELETE: 10 };

export interface RateLimitRule {
  /** `METHOD /path/{param}`: the bucket name. */
  bucket: string;
  /** Requests per window before the multiplier. */
  limit: number;
  windowSeconds: number;
  /** Who the limit counts: the API key, or the client IP for unauthenticated routes. */
  per: "key" | "ip";
}

/** `path` is the OpenAPI-style pattern relative to /api/v2, e.g. `/contacts/{contact_uuid}`. */
export function rateLimitRule(method: string, path: string, per: "key" | "ip" = "key"): RateLimitRule {
  const bucket = `${method.toUpperCase()} ${path}`;
  const limit = byRoute[bucket] ?? byMethod[method.toUpperCase()] ?? 30;
  return { bucket, limit, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, per };
}

/**
 * Requests to the MCP endpoint per key, whatever they carry (listing tools, a tool call).
 * A tool call counts again against its own route's limit, which is what usually binds; this
 * one keeps a key from flooding the endpoint with requests that reach no route.
 */
export const MCP_RATE_LIMIT: RateLimitRule = { bucket: "MCP /mcp", limit: 120, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, per: "key" };

/**
 * Failed operator-API authentications per client IP (docs/decisions/security-posture.md), so
 * ADMIN_TOKEN cannot be guessed at speed. Only failures count; once they are used up the IP
 * is refused every operator request until the window frees.
 */
export const OPERATOR_AUTH_FAILURES: RateLimitRule = {
  bucket: "operator auth failures",
  limit: 10,
  windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
  per: "ip",
};

/** The limit a key actually gets: the multiplier scales it, never below one request. */
export const effectiveLimit = (limit: number, multiplier: number) => Math.max(1, Math.floor(limit * multiplier));

/**
 * The OAuth token endpoint per client IP: exchanges, refreshes and revocations. An app serving
 * many agencies refreshes each grant's token about once an hour, so this leaves room for
 * thousands of connected agencies behind one address.
 */
export const OAUTH_TOKEN_RATE_LIMIT: RateLimitRule = { bucket: "POST /oauth/token", limit: 300, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, per: "ip" };

/**
 * Dynamic client registration per client IP: an app registers once, not per request, but an AI
 * host registers once per user who connects, from its few shared addresses.
 */
export const OAUTH_REGISTER_RATE_LIMIT: RateLimitRule = { bucket: "POST /oauth/register", limit: 60, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, per: "ip" };

/** The consent page per client IP: each visit may fetch an app's metadata document from its site. */
export const OAUTH_AUTHORIZE_RATE_LIMIT: RateLimitRule = { bucket: "GET /dashboard/oauth/authorize", limit: 60, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, per: "ip" };

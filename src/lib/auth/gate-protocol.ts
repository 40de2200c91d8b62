import type { Caller } from "@/lib/caller";
import type { Scope } from "@/lib/auth/scopes";

/**
 * What the Worker and its AccessGate Durable Object (src/durable-objects/access-gate.ts) say to
 * each other: the requests and answers of its RPC methods. Kept apart from the class, so the
 * Worker's bindings (env.ts) can name the object's type without importing the object itself.
 */

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity (RateLimit-Reset). */
  resetSeconds: number;
}

/** One rate limit and scope a request must pass: a route's, or the /mcp endpoint's. */
export interface GateCheck {
  bucket: string;
  /** The route's limit before the key's multiplier. */
  limit: number;
  windowSeconds: number;
  /** Any one of these grants access. */
  scopes: readonly Scope[];
  /** The request changes data (not GET or HEAD): refused while the key's agency is moving. */
  write: boolean;
}

/**
 * Checks decided in the same call once the request's own check admitted it, in order: a /mcp
 * tool call names its route's (docs/decisions/sdk-and-mcp.md). A check whose scopes the
 * credential lacks is neither counted nor admitted (`unscoped`); one refused stops the rest.
 */
interface FurtherChecks {
  also?: readonly GateCheck[];
}

export interface AdmissionRequest extends GateCheck, FurtherChecks {
  keyId: string;
  tokenHash: string;
}

/** A request carrying a connected app's OAuth access token, for its grant's gate. */
export interface GrantAdmissionRequest extends GateCheck, FurtherChecks {
  grantId: string;
  /** The access token itself: only the OAuth library can check it (its record is keyed by the token's hash, its props sealed with it). */
  token: string;
  /** The issuer the request came to, whose authorization server issued the token. */
  issuer: string;
  /** The token audiences (RFC 8707 resources) this route accepts, most likely first. */
  audiences: readonly string[];
}

export interface OperatorAdmissionRequest {
  /** The bearer token presented, if any. */
  token: string | null;
  /** Where failures are counted, and how many a window allows. */
  bucket: string;
  limit: number;
  windowSeconds: number;
}

export type OperatorAdmission =
  | { outcome: "admitted" }
  /** A wrong or missing token, counted against the IP's failures. */
  | { outcome: "invalid"; decision: RateLimitDecision }
  /** The IP's failures are used up: refused without looking at the token. */
  | { outcome: "refused"; decision: RateLimitDecision };

export type Admission =
  | { outcome: "admitted"; caller: Caller; decision: RateLimitDecision; /** One answer per further check asked, in order. */ also?: CheckAdmission[] }
  | { outcome: "invalid" | "expired" }
  /** Counted against the limit (the decision may refuse it), but the key lacks the scope. */
  | { outcome: "forbidden"; decision: RateLimitDecision }
  /** Counted and allowed, but a write while the key's agency moves to another shard (503). */
  | { outcome: "moving"; decision: RateLimitDecision };

/** A known credential's answer: counted against the limit, and admitted or not. */
export type CountedAdmission = Exclude<Admission, { outcome: "invalid" | "expired" }>;

/** A further check's answer: as a request's, or `unscoped` (not counted), or `skipped` after an earlier one refused. */
export type CheckAdmission = CountedAdmission | { outcome: "unscoped" | "skipped" };

/** The AccessGate's RPC methods, as the Worker's binding sees them. */
export interface AccessGateApi extends Rpc.DurableObjectBranded {
  admit(request: AdmissionRequest): Promise<Admission>;
  admitGrant(request: GrantAdmissionRequest): Promise<Admission>;
  invalidate(): void;
  revoke(): Promise<void>;
  endToken(token: string, expiresAtMs: number): Promise<void>;
  claimCode(): boolean;
  releaseCode(): void;
  isRevoked(): boolean;
  admitOperator(request: OperatorAdmissionRequest): OperatorAdmission;
  consume(bucket: string, limit: number, windowSeconds: number, now?: number): RateLimitDecision;
}

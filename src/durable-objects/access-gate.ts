import { DurableObject } from "cloudflare:workers";
import type { Env } from "@/env";
import { hasAnyScope, type Scope } from "@/lib/auth/scopes";
import type { Caller } from "@/lib/context";
import { effectiveLimit } from "@/lib/rate-limits";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity (RateLimit-Reset). */
  resetSeconds: number;
}

export interface AdmissionRequest {
  keyId: string;
  tokenHash: string;
  bucket: string;
  /** The route's limit before the key's multiplier. */
  limit: number;
  windowSeconds: number;
  /** Any one of these grants access. */
  scopes: readonly Scope[];
}

export type Admission =
  | { outcome: "admitted"; caller: Caller; decision: RateLimitDecision }
  | { outcome: "invalid" | "expired" }
  | { outcome: "rate_limited" | "forbidden"; decision: RateLimitDecision };

interface KeyState {
  agencyId: string;
  accessHash: string;
  scopes: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  rateLimitMultiplier: number;
}

/**
 * A key's cached state lives this long at most. Every change to a key (revoke, renew,
 * rotate, scope or multiplier edit) also invalidates the cache at once; the TTL only bounds
 * the damage if such a call were ever lost.
 */
const KEY_CACHE_MS = 60_000;

/**
 * The gate in front of the Partner API: one instance per API key (`key:<id>`) or per client
 * IP (`ip:<address>`). For a key it answers authentication, scope and rate limit in one call,
 * from a cached copy of the key's row, so an authenticated request costs one Durable Object
 * round trip plus the handler's own D1 work.
 *
 * Rate limits are a sliding-window log per bucket, written through to the object's SQLite
 * storage. `consume` never awaits, and a Durable Object runs one event at a time, so N
 * concurrent requests against a limit L admit exactly L.
 */
export class AccessGate extends DurableObject<Env> {
  private readonly logs = new Map<string, number[]>();
  private key: { state: KeyState | null; loadedAt: number } | undefined;
  private generation = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, hits TEXT NOT NULL)");
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const key = await this.keyState(request.keyId);
    if (!key || key.revokedAt || key.accessHash !== request.tokenHash) return { outcome: "invalid" };
    if (key.expiresAt && key.expiresAt <= new Date().toISOString()) return { outcome: "expired" };

    const decision = this.consume(request.bucket, effectiveLimit(request.limit, key.rateLimitMultiplier), request.windowSeconds);
    if (!decision.allowed) return { outcome: "rate_limited", decision };
    if (!hasAnyScope(key.scopes, request.scopes)) return { outcome: "forbidden", decision };
    const caller: Caller = {
      keyId: request.keyId,
      agencyId: key.agencyId,
      scopes: key.scopes,
      rateLimitMultiplier: key.rateLimitMultiplier,
    };
    return { outcome: "admitted", caller, decision };
  }

  /** Forget the cached key: the next request reads the row again. */
  invalidate(): void {
    this.generation++;
    this.key = undefined;
  }

  /** `now` is only passed by tests that need to move the clock. */
  consume(bucket: string, limit: number, windowSeconds: number, now = Date.now()): RateLimitDecision {
    const windowMs = windowSeconds * 1000;
    const hits = this.load(bucket).filter((t) => t > now - windowMs);
    const secondsUntil = (t: number) => Math.max(1, Math.ceil((t + windowMs - now) / 1000));

    if (hits.length >= limit) {
      this.save(bucket, hits);
      // Capacity returns when enough of the oldest hits leave the window.
      const freesAt = hits[hits.length - limit] ?? now;
      return { allowed: false, limit, remaining: 0, resetSeconds: secondsUntil(freesAt) };
    }
    hits.push(now);
    this.save(bucket, hits);
    return { allowed: true, limit, remaining: limit - hits.length, resetSeconds: secondsUntil(hits[0] ?? now) };
  }

  private async keyState(keyId: string): Promise<KeyState | null> {
    if (this.key && Date.now() - this.key.loadedAt < KEY_CACHE_MS) return this.key.state;
    const generation = this.generation;
    const row = await this.env.DB.prepare(
      "SELECT agency_id, access_hash, scopes, expires_at, revoked_at, rate_limit_multiplier FROM api_keys WHERE id = ?",
    )
      .bind(keyId)
      .first<{
        agency_id: string;
        access_hash: string;
        scopes: string;
        expires_at: string | null;
        revoked_at: string | null;
        rate_limit_multiplier: number;
      }>();
    const state: KeyState | null = row
      ? {
          agencyId: row.agency_id,
          accessHash: row.access_hash,
          scopes: JSON.parse(row.scopes) as string[],
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
          rateLimitMultiplier: row.rate_limit_multiplier,
        }
      : null;
    // An invalidation that arrived while we were reading wins: don't cache what it replaced.
    if (generation === this.generation) this.key = { state, loadedAt: Date.now() };
    return state;
  }

  private load(bucket: string): number[] {
    const cached = this.logs.get(bucket);
    if (cached) return cached;
    const row = this.ctx.storage.sql.exec<{ hits: string }>("SELECT hits FROM buckets WHERE name = ?", bucket).toArray()[0];
    return row ? (JSON.parse(row.hits) as number[]) : [];
  }

  private save(bucket: string, hits: number[]) {
    this.logs.set(bucket, hits);
    this.ctx.storage.sql.exec(
      "INSERT INTO buckets (name, hits) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET hits = excluded.hits",
      bucket,
      JSON.stringify(hits),
    );
  }
}

import { DurableObject } from "cloudflare:workers";
import type { Env } from "@/env";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity (RateLimit-Reset). */
  resetSeconds: number;
}

/**
 * One instance per API key (or per client IP), holding a sliding-window log per bucket.
 * A Durable Object runs one call at a time and `consume` never awaits, so N concurrent
 * requests against a limit L admit exactly L. The log is written through to the object's
 * SQLite storage so an evicted object does not forget recent requests.
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly logs = new Map<string, number[]>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, hits TEXT NOT NULL)");
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

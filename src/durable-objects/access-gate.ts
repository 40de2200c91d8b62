import { DurableObject } from "cloudflare:workers";
import { shardDatabase } from "@/db/shards";
import type { Env } from "@/env";
import { readGrantState, readKeyState, type GrantState, type KeyState } from "@/domain/auth/gate-state";
import { authorizationServer } from "@/domain/auth/oauth-server";
import type {
  AccessGateApi,
  Admission,
  AdmissionRequest,
  CheckAdmission,
  GateCheck,
  GrantAdmissionRequest,
  OperatorAdmission,
  OperatorAdmissionRequest,
  RateLimitDecision,
} from "@/lib/auth/gate-protocol";
import { hasAnyScope } from "@/lib/auth/scopes";
import { sha256Hex, timingSafeEqual } from "@/lib/crypto";
import type { Caller } from "@/lib/caller";
import { effectiveLimit } from "@/lib/rate-limits";
import { LastUsedWriter } from "./last-used";

/**
 * A key's cached row lives this long at most. Every change to a key (revoke, renew, rotate,
 * scope or multiplier edit) also invalidates the cache at once; the TTL only bounds the damage
 * if such a call were ever lost. Where the agency lives is not on this timer: it is kept until
 * the gate is told otherwise (`invalidate`), and the row's refresh reads the agency's own shard
 * only (docs/decisions/authentication.md, "The gate keeps the key's shard").
 */
const KEY_CACHE_MS = 60_000;
const BUCKET_PREFIX = "bucket:";
/** A grant's gate remembers its revocation here, so no copy of the token in KV can bring it back. */
const REVOKED_KEY = "revoked";
/** Set while the grant's code is being exchanged, and for good once it was: a code works once. */
const CODE_CLAIMED_KEY = "code-claimed";
/** Access tokens the app itself revoked (RFC 7009), by hash, with when each would have expired. */
const ENDED_TOKENS_KEY = "ended-tokens";

/** An OAuth access token the library vouched for, remembered for KEY_CACHE_MS at most. */
interface GrantToken {
  hash: string;
  agencyId: string;
  clientId: string;
  scopes: string[];
  audience: string;
  expiresAtMs: number;
  checkedAt: number;
}

/** A grant's gate keeps at most this many tokens in mind: its app holds one or two at a time. */
const MAX_GRANT_TOKENS = 16;

interface Window {
  counts: [second: number, count: number][];
  used: number;
  second: number;
}

/** Seconds until the second `s` leaves the window (at least 1). */
const secondsUntilExpiry = (s: number, windowSeconds: number, now: number) =>
  Math.max(1, Math.ceil(((s + windowSeconds) * 1000 - now) / 1000));

/**
 * The gate in front of the Partner API: one instance per API key (`key:<id>`), per connected
 * app's OAuth grant (`grant:<id>`) or per client IP (`ip:<address>`). For a key or a grant it
 * answers authentication, scope and rate limit in one call, from a cached copy of the key's row
 * (or of the grant's token), so an authenticated request costs one Durable Object round trip
 * plus the handler's own D1 work, whichever credential it carries. An IP's instance also answers the operator token
 * and counts its failures (`admitOperator`).
 * An admitted request also marks the key used: `last_used_at` is written behind, at most once
 * a minute (last-used.ts), so it adds no D1 write to the request.
 *
 * Rate limits are a sliding window per bucket (one-second resolution), kept in memory and
 * written behind to the object's storage so a restarted object does not forget. `consume` never awaits, and a
 * Durable Object runs one event at a time, so N concurrent requests against a limit L admit
 * exactly L.
 */
export class AccessGate extends DurableObject<Env> implements AccessGateApi {
  private readonly logs = new Map<string, [second: number, count: number][]>();
  private key: { state: KeyState | null; loadedAt: number } | undefined;
  private generation = 0;
  private readonly lastUsed: LastUsedWriter;
  /** A grant's gate: the tokens it checked, by hash, and where the grant's agency lives. */
  private readonly grantTokens = new Map<string, GrantToken>();
  private grant: { agencyId: string; state: GrantState | null; loadedAt: number } | undefined;
  private revoked = false;
  private codeClaimed = false;
  private endedTokens = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.lastUsed = new LastUsedWriter(ctx);
    // Load every bucket once, before the first request, so `consume` never has to await.
    void ctx.blockConcurrencyWhile(async () => {
      for (const [name, counts] of await ctx.storage.list<[number, number][]>({ prefix: BUCKET_PREFIX })) {
        this.logs.set(name.slice(BUCKET_PREFIX.length), counts);
      }
      this.revoked = (await ctx.storage.get<boolean>(REVOKED_KEY)) === true;
      this.codeClaimed = (await ctx.storage.get<boolean>(CODE_CLAIMED_KEY)) === true;
      this.endedTokens = new Map(Object.entries((await ctx.storage.get<Record<string, number>>(ENDED_TOKENS_KEY)) ?? {}));
    });
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const key = await this.keyState(request.keyId);
    if (!key || key.revokedAt || key.accessHash !== request.tokenHash) return { outcome: "invalid" };
    if (key.expiresAt && key.expiresAt <= new Date().toISOString()) return { outcome: "expired" };

    const counted = this.count(request, key.scopes, key.rateLimitMultiplier, key.moving);
    if (counted.outcome !== "admitted") return counted;
    const { decision } = counted;
    const caller: Caller = {
      credential: { type: "api_key", keyId: request.keyId },
      agencyId: key.agencyId,
      shard: key.shard,
      scopes: key.scopes,
    };
    this.lastUsed.touch("api_keys", request.keyId, shardDatabase(this.env, key.shard));
    return { outcome: "admitted", caller, decision, ...this.further(request.also, caller, key.rateLimitMultiplier, key.moving) };
  }

  /**
   * A connected app's request: the grant's gate checks its OAuth token (the library's record,
   * read once a minute at most), the audience, the rate limit and the scope in one call, as
   * `admit` does for a key, from cached copies of the token and of the grant's row.
   */
  async admitGrant(request: GrantAdmissionRequest): Promise<Admission> {
    if (this.revoked) return { outcome: "invalid" };
    const token = await this.grantToken(request);
    if (!token) return { outcome: "invalid" };
    if (token.expiresAtMs <= Date.now()) return { outcome: "expired" };
    const grant = await this.grantState(token.agencyId, request.grantId);
    // The reads above let other calls in: a revocation that ran meanwhile holds for this request too.
    if (!grant || this.revoked || this.endedTokens.has(token.hash)) return { outcome: "invalid" };

    const counted = this.count(request, token.scopes, grant.rateLimitMultiplier, grant.moving);
    if (counted.outcome !== "admitted") return counted;
    const { decision } = counted;
    const caller: Caller = {
      credential: { type: "app_grant", grantId: request.grantId, clientId: token.clientId },
      agencyId: token.agencyId,
      shard: grant.shard,
      scopes: token.scopes,
    };
    this.lastUsed.touch("app_grants", request.grantId, shardDatabase(this.env, grant.shard));
    return { outcome: "admitted", caller, decision, ...this.further(request.also, caller, grant.rateLimitMultiplier, grant.moving) };
  }

  /**
   * The further checks of an admitted request (a /mcp tool call's route), decided in the same
   * event as its own check: nothing awaits in between, so concurrent tool calls against a limit
   * L admit exactly L, and a request's checks all see one state of its buckets.
   */
  private further(checks: readonly GateCheck[] | undefined, caller: Caller, multiplier: number, moving: boolean): { also?: CheckAdmission[] } {
    if (!checks?.length) return {};
    let refused = false;
    const also = checks.map((check): CheckAdmission => {
      if (refused) return { outcome: "skipped" };
      const answer = this.furtherCheck(check, caller, multiplier, moving);
      refused = answer.outcome !== "admitted";
      return answer;
    });
    return { also };
  }

  private furtherCheck(check: GateCheck, caller: Caller, multiplier: number, moving: boolean): CheckAdmission {
    // A route the credential has no scope for is not offered to it: nothing is counted.
    if (!hasAnyScope(caller.scopes, check.scopes)) return { outcome: "unscoped" };
    const counted = this.count(check, caller.scopes, multiplier, moving);
    return counted.outcome === "admitted" ? { ...counted, caller } : counted;
  }

  /**
   * One check of a known credential: counted against its bucket first (so a credential without
   * the scope still spends its limit), then refused over the limit or without the scope, or as
   * a write while its agency moves.
   */
  private count(check: GateCheck, scopes: readonly string[], multiplier: number, moving: boolean) {
    const decision = this.consume(check.bucket, effectiveLimit(check.limit, multiplier), check.windowSeconds);
    if (!decision.allowed || !hasAnyScope(scopes, check.scopes)) return { outcome: "forbidden" as const, decision };
    if (moving && check.write) return { outcome: "moving" as const, decision };
    return { outcome: "admitted" as const, decision };
  }

  /**
   * Forget the cached key (or grant tokens and agency), and where the agency lives: the next
   * request reads the directory again. Every change to where an agency lives or whether it is
   * moving calls this for each of its keys and grants (src/domain/agencies/move-agency.ts).
   */
  invalidate(): void {
    this.generation++;
    this.key = undefined;
    this.grantTokens.clear();
    this.grant = undefined;
  }

  /**
   * The grant was revoked: every token of it is refused from now on, by this gate's own stored
   * word, whatever a slower copy of the OAuth records still holds.
   */
  async revoke(): Promise<void> {
    this.revoked = true;
    this.invalidate();
    await this.ctx.storage.put(REVOKED_KEY, true);
  }

  /**
   * The app revoked one access token (RFC 7009): refused from now on, by hash, until it would
   * have expired anyway (an hour at most), whatever a slower copy of the OAuth records holds.
   */
  async endToken(token: string, expiresAtMs: number): Promise<void> {
    const now = Date.now();
    for (const [hash, until] of this.endedTokens) if (until <= now) this.endedTokens.delete(hash);
    this.endedTokens.set(await sha256Hex(token), expiresAtMs);
    this.invalidate();
    await this.ctx.storage.put(ENDED_TOKENS_KEY, Object.fromEntries(this.endedTokens));
  }

  /**
   * The grant's authorization code is being exchanged: true for the first claim only. The OAuth
   * library spends a code with a read and a later write of its record, so two exchanges sent at
   * once could both pass; one object deciding, one call at a time, lets exactly one through, and
   * the second ends the grant.
   */
  claimCode(): boolean {
    if (this.codeClaimed) {
      // The code's second use: the grant ends (OAuth 2.1 §4.1.3), here at once, for every token of it.
      this.revoked = true;
      this.invalidate();
      void this.ctx.storage.put(REVOKED_KEY, true);
      return false;
    }
    this.codeClaimed = true;
    void this.ctx.storage.put(CODE_CLAIMED_KEY, true);
    return true;
  }

  isRevoked(): boolean {
    return this.revoked;
  }

  /** The exchange that claimed the code failed before the code was spent (a move's 503): it may be tried again. */
  releaseCode(): void {
    this.codeClaimed = false;
    void this.ctx.storage.delete(CODE_CLAIMED_KEY);
  }

  /**
   * The operator API's front door for one client IP: decides the operator token and counts
   * failures in one call. The lockout is checked before the token is compared, and nothing
   * here awaits, so the check, the comparison and the count happen as one step: once the
   * failures of the window are used up, every attempt is refused, the right token too, and a
   * burst of concurrent guesses gets exactly `limit` answers. Success counts nothing.
   */
  admitOperator(request: OperatorAdmissionRequest): OperatorAdmission {
    const { token, bucket, limit, windowSeconds } = request;
    const now = Date.now();
    const window = this.window(bucket, windowSeconds, now);
    if (window.used >= limit) return { outcome: "refused", decision: this.refuse(bucket, window, limit, windowSeconds, now) };
    const expected = this.env.ADMIN_TOKEN;
    if (token !== null && expected && timingSafeEqual(token, expected)) return { outcome: "admitted" };
    return { outcome: "invalid", decision: this.consume(bucket, limit, windowSeconds, now) };
  }

  /**
   * Sliding window at one-second resolution: a count per second over the last
   * `windowSeconds` seconds. Its state is at most `windowSeconds` pairs whatever the limit,
   * so a key with a large multiplier costs the same as any other. `now` is only passed by
   * tests that need to move the clock.
   */
  consume(bucket: string, limit: number, windowSeconds: number, now = Date.now()): RateLimitDecision {
    const window = this.window(bucket, windowSeconds, now);
    if (window.used >= limit) return this.refuse(bucket, window, limit, windowSeconds, now);
    const { counts, used, second } = window;
    const last = counts[counts.length - 1];
    if (last && last[0] === second) last[1]++;
    else counts.push([second, 1]);
    this.save(bucket, counts);
    return { allowed: true, limit, remaining: limit - used - 1, resetSeconds: secondsUntilExpiry(counts[0]![0], windowSeconds, now) };
  }

  /** The bucket's counts still inside the window, and their sum. */
  private window(bucket: string, windowSeconds: number, now: number): Window {
    const second = Math.floor(now / 1000);
    const counts = this.load(bucket).filter(([s]) => s > second - windowSeconds);
    return { counts, used: counts.reduce((sum, [, n]) => sum + n, 0), second };
  }

  private refuse(bucket: string, { counts, used, second }: Window, limit: number, windowSeconds: number, now: number): RateLimitDecision {
    // A refusal adds no count: keep the pruned window in memory and skip the storage write,
    // so a flood of 429s costs no writes (a restarted object prunes the saved copy the same way).
    this.logs.set(bucket, counts);
    // Capacity returns once enough of the oldest seconds have left the window.
    let freed = 0;
    let frees = counts[counts.length - 1]?.[0] ?? second;
    for (const [s, n] of counts) {
      freed += n;
      if (used - freed < limit) {
        frees = s;
        break;
      }
    }
    return { allowed: false, limit, remaining: 0, resetSeconds: secondsUntilExpiry(frees, windowSeconds, now) };
  }

  /**
   * The key's row and where its agency lives: two reads (the directory, then the key on its
   * shard) on the first request and after an invalidation; then the row alone, on the shard
   * already known, once a minute at most. Every request in between is answered from memory.
   */
  private async keyState(keyId: string): Promise<KeyState | null> {
    if (this.key && Date.now() - this.key.loadedAt < KEY_CACHE_MS) return this.key.state;
    const generation = this.generation;
    const state = await readKeyState(this.env, keyId, this.key?.state);
    // An invalidation that arrived while we were reading wins: don't cache what it replaced.
    if (generation === this.generation) this.key = { state, loadedAt: Date.now() };
    return state;
  }

  /**
   * The token as the OAuth library vouches for it, for one of the audiences the route accepts;
   * remembered for a minute, so an app's busy token costs the KV read once a minute.
   */
  private async grantToken(request: GrantAdmissionRequest): Promise<GrantToken | null> {
    const hash = await sha256Hex(request.token);
    const cached = this.grantTokens.get(hash);
    if (cached && Date.now() - cached.checkedAt < KEY_CACHE_MS) return request.audiences.includes(cached.audience) ? cached : null;
    const generation = this.generation;
    const server = authorizationServer(request.issuer);
    for (const audience of request.audiences) {
      const valid = await server.validateToken(audience, request.token, this.env);
      if (!valid) continue;
      const token: GrantToken = {
        hash,
        agencyId: valid.userId,
        clientId: valid.clientId,
        scopes: valid.scope,
        audience: valid.audience,
        expiresAtMs: valid.expiresAt * 1000,
        checkedAt: Date.now(),
      };
      if (generation === this.generation && !this.revoked) {
        if (this.grantTokens.size >= MAX_GRANT_TOKENS) this.grantTokens.clear();
        this.grantTokens.set(hash, token);
      }
      return token;
    }
    return null;
  }

  /**
   * Where the grant's agency lives and the grant's own row (its multiplier, whether it was
   * revoked), kept as a key's: the directory on the first request and after an invalidation,
   * the row on its known shard once a minute at most.
   */
  private async grantState(agencyId: string, grantId: string): Promise<GrantState | null> {
    const known = this.grant?.agencyId === agencyId ? this.grant : undefined;
    if (known && Date.now() - known.loadedAt < KEY_CACHE_MS) return known.state;
    const generation = this.generation;
    const state = await readGrantState(this.env, agencyId, grantId, known?.state);
    if (generation === this.generation) this.grant = { agencyId, state, loadedAt: Date.now() };
    return state;
  }

  private load(bucket: string): [second: number, count: number][] {
    return this.logs.get(bucket) ?? [];
  }

  private save(bucket: string, counts: [number, number][]) {
    this.logs.set(bucket, counts);
    // The in-memory window is the source of truth while the object lives; storage only lets
    // a restarted object remember recent requests. allowUnconfirmed: the response need not
    // wait for the write to be durable (the output gate would otherwise hold it back).
    void this.ctx.storage.put(BUCKET_PREFIX + bucket, counts, { allowUnconfirmed: true });
  }
}

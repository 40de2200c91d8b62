/** An access token and the one-time rotate key that renews it (`POST /auth/token/renew`). */
export interface TokenPair {
  access_token: string;
  rotate_key: string;
}

/**
 * Where the caller keeps the key's token pair. The SDK reads it before each request and
 * writes the new pair after a renewal; a store shared by several processes (a database row,
 * a secret manager) lets each of them see another's renewal instead of renewing again.
 */
export interface TokenStore {
  get(): TokenPair | Promise<TokenPair>;
  set(pair: TokenPair): void | Promise<void>;
}

/** A store in memory, for one process. Persist the pair yourself in `onRenew` if you use it. */
export function memoryTokenStore(initial: TokenPair, onRenew?: (pair: TokenPair) => void | Promise<void>): TokenStore {
  let pair = initial;
  return {
    get: () => pair,
    async set(next) {
      pair = next;
      await onRenew?.(next);
    },
  };
}

/**
 * Renews an expired token exactly once however many requests find it expired together:
 * they share the renewal in flight, and one that finds the store already holding another
 * token (renewed meanwhile, here or by another process) simply uses it.
 */
export class TokenRenewer {
  #inFlight: Promise<string> | undefined;

  constructor(
    private readonly store: TokenStore,
    private readonly renew: (pair: TokenPair) => Promise<TokenPair>,
  ) {}

  async current(): Promise<string> {
    return (await this.store.get()).access_token;
  }

  /** A token newer than `expired`: the stored one if it differs, else one renewal shared by all callers. */
  replace(expired: string): Promise<string> {
    this.#inFlight ??= this.#renewUnlessRenewed(expired).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #renewUnlessRenewed(expired: string): Promise<string> {
    const stored = await this.store.get();
    if (stored.access_token !== expired) return stored.access_token;
    const next = await this.renew(stored);
    await this.store.set(next);
    return next.access_token;
  }
}

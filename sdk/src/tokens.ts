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

  /** The token to send: the one a renewal in flight is about to store, else the stored one. */
  async current(): Promise<string> {
    return this.#inFlight ?? (await this.store.get()).access_token;
  }

  /**
   * After a 401 for the token `sent`: a newer token if there is one (renewed meanwhile, so
   * the old one is now simply unknown to the API), or, when the API said it expired, one
   * renewal shared by every caller. Undefined when there is nothing newer to try.
   */
  afterRefusal(sent: string, expired: boolean): Promise<string | undefined> {
    if (this.#inFlight) return this.#inFlight;
    const renewal = this.#newerOrRenewed(sent, expired);
    if (!expired) return renewal;
    this.#inFlight = renewal.then((token) => token!).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #newerOrRenewed(sent: string, expired: boolean): Promise<string | undefined> {
    const stored = await this.store.get();
    if (stored.access_token !== sent) return stored.access_token;
    if (!expired) return undefined;
    // Only the pair itself: a store may hand back a row with more fields than renewal takes.
    const next = await this.renew({ access_token: stored.access_token, rotate_key: stored.rotate_key });
    await this.store.set(next);
    return next.access_token;
  }
}

import { ConnectionError } from "./errors.js";
import { announcedWaitMs, isRetryableStatus, retryDelayMs, type RetryOptions } from "./retry.js";
import type { TokenRenewer } from "./tokens.js";

export const BOOKMARK_HEADER = "X-D1-Bookmark";

export type FetchLike = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  /** Where the bearer token comes from: a fixed one, a renewer over the caller's store, or none. */
  token?: string | TokenRenewer | undefined;
  retry: Required<RetryOptions>;
  /**
   * `rate-limits` retries only 429s, which the API answers before a handler runs: for a
   * request that must not run twice and has no Idempotency-Key the API honours (renewal).
   */
  retryOn?: "all" | "rate-limits";
  sleep: (ms: number, signal?: AbortSignal | null) => Promise<void>;
  headers?: Record<string, string>;
}

/**
 * The later of two bookmarks. D1's are fixed-width hex, in order as text; the API tags each with
 * its database (`DB:…`). Answers can arrive out of order, so a late answer to an early read must
 * not replace a write's newer bookmark. One of another database (the agency moved) is taken.
 */
export function laterBookmark(current: string | undefined, seen: string): string {
  if (current === undefined) return seen;
  const tagOf = (bookmark: string) => bookmark.slice(0, bookmark.indexOf(":") + 1);
  if (tagOf(current) !== tagOf(seen) || current.length !== seen.length) return seen;
  return seen > current ? seen : current;
}

async function errorCodeOf(response: Response): Promise<unknown> {
  try {
    return ((await response.clone().json()) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

/**
 * The fetch under the typed client: everything a request needs beyond its shape. It sends
 * the bearer token; gives a POST an Idempotency-Key kept across its retries; echoes the
 * latest bookmark it has received so reads follow this client's writes; renews an
 * expired token once (or takes the one renewed meanwhile) and repeats the request; and
 * retries network failures, 429 and 503 after the wait the API announced (or a jittered
 * backoff). Any other answer is returned as it came.
 */
export function createTransport(options: TransportOptions): FetchLike {
  let bookmark: string | undefined;
  const renewer = typeof options.token === "object" ? options.token : undefined;

  return async function send(request) {
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(options.headers ?? {})) if (!headers.has(name)) headers.set(name, value);
    if (request.method === "POST" && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", crypto.randomUUID());
    const ownBookmark = headers.has(BOOKMARK_HEADER);
    let token = renewer ? await renewer.current() : options.token;
    let renewed = false;

    for (let retry = 0; ; ) {
      if (!ownBookmark && bookmark !== undefined) headers.set(BOOKMARK_HEADER, bookmark);
      if (typeof token === "string") headers.set("Authorization", `Bearer ${token}`);
      let response: Response;
      try {
        response = await options.fetch(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
      } catch (cause) {
        if (request.signal.aborted) throw cause;
        if (retry >= options.retry.maxRetries || options.retryOn === "rate-limits") {
          throw new ConnectionError({ message: `Request failed: ${String(cause)}`, status: 0, code: "connection_error", cause });
        }
        await options.sleep(retryDelayMs(retry++, undefined, options.retry)!, request.signal);
        continue;
      }

      const seen = response.headers.get(BOOKMARK_HEADER);
      if (seen) bookmark = laterBookmark(bookmark, seen);

      if (response.status === 401 && renewer && !renewed && typeof token === "string") {
        const newer = await renewer.afterRefusal(token, (await errorCodeOf(response)) === "token_expired");
        if (newer !== undefined) {
          await response.body?.cancel();
          token = newer;
          renewed = true;
          continue;
        }
      }
      const retryable = options.retryOn === "rate-limits" ? response.status === 429 : isRetryableStatus(response.status);
      if (retryable && retry < options.retry.maxRetries) {
        const delay = retryDelayMs(retry, announcedWaitMs(response.headers), options.retry);
        if (delay !== undefined) {
          await response.body?.cancel();
          await options.sleep(delay, request.signal);
          retry++;
          continue;
        }
      }
      return response;
    }
  };
}

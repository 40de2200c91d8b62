import { retryAfterSeconds } from "./errors.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff step in ms when the API names no wait (default 500); doubles per retry. */
  baseDelayMs?: number;
  /** Longest backoff step in ms when the API names no wait (default 20 000). */
  maxBackoffMs?: number;
  /**
   * Longest wait the SDK accepts from Retry-After or RateLimit-Reset (default 60 000 ms, one
   * rate-limit window). A longer one is not waited out: the error is thrown at once.
   */
  maxWaitMs?: number;
}

export const defaultRetryOptions: Required<RetryOptions> = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxBackoffMs: 20_000,
  maxWaitMs: 60_000,
};

/** 429 and 503 say "try again later"; every other answer is final (a 4xx will not change by itself). */
export const isRetryableStatus = (status: number) => status === 429 || status === 503;

/** The wait the API asked for in ms: Retry-After, else RateLimit-Reset (seconds until capacity frees). */
export function announcedWaitMs(headers: Headers): number | undefined {
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) return retryAfter * 1000;
  const reset = Number(headers.get("RateLimit-Reset") ?? Number.NaN);
  return Number.isFinite(reset) && reset >= 0 ? reset * 1000 : undefined;
}

/**
 * How long to wait before retry number `retry` (0-based): the API's own wait plus up to 10%
 * (at most a second) of jitter, so clients told the same second do not all return in it;
 * otherwise exponential backoff with full jitter. Undefined when the announced wait is
 * longer than the caller accepts.
 */
export function retryDelayMs(retry: number, announced: number | undefined, options: Required<RetryOptions>, random = Math.random): number | undefined {
  if (announced !== undefined) {
    if (announced > options.maxWaitMs) return undefined;
    return announced + random() * Math.min(1000, announced * 0.1);
  }
  const step = Math.min(options.maxBackoffMs, options.baseDelayMs * 2 ** retry);
  return random() * step;
}

export const realSleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

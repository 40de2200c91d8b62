import type { Db } from "@/db/client";
import { agencyDb } from "@/db/shards";
import type { Env } from "@/env";
import { isAgencyMovingError, MOVE_RETRY_AFTER_SECONDS } from "@/lib/shards/agency-moving";
import { applyCallback, type ProviderCallback } from "./provider-callback";

/**
 * A queued callback while its agency moves is tried again after 10 s, 20 s, 40 s, ... then every
 * 5 minutes: with the queue's 100 retries (wrangler.toml) that is about 8 hours, far beyond any
 * move (a move whose Worker stops is rolled back within minutes), before it is dead-lettered.
 */
export const deferredRetrySeconds = (attempts: number) => Math.min(MOVE_RETRY_AFTER_SECONDS * 2 ** Math.max(0, attempts - 1), 300);

/** In the dead-letter queue, hourly: for the 72 retries of that queue, three more days. */
export const DEAD_LETTER_RETRY_SECONDS = 3_600;

export type DeferredOutcome =
  | { outcome: "applied" | "unchanged"; db: Db }
  /** The agency is still moving (the directory says so, or its old shard's fence refused the write): try later. */
  | { outcome: "moving"; db?: Db }
  /** The directory no longer knows the agency (deleted): nothing to apply it to. */
  | { outcome: "agency-gone" };

/**
 * Applies a queued callback where its agency lives now, read afresh from the directory at each
 * attempt (so a callback that waited out a move lands on the agency's new shard). Throws on any
 * other failure, for the consumer to retry.
 */
export async function applyDeferredCallback(env: Env, callback: ProviderCallback, now = Date.now()): Promise<DeferredOutcome> {
  const home = await agencyDb(env, callback.agency_id);
  if (!home) return { outcome: "agency-gone" };
  if (home.location.movingTo) return { outcome: "moving" };
  const { db } = home;
  try {
    return { outcome: (await applyCallback(db, callback, now)) ? "applied" : "unchanged", db };
  } catch (error) {
    if (isAgencyMovingError(error)) return { outcome: "moving", db };
    throw error;
  }
}

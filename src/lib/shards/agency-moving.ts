import { ApiError } from "@/lib/errors";

/** What a client is told to wait before retrying a write during a move. */
export const MOVE_RETRY_AFTER_SECONDS = 10;

export const writesPausedMessage = `The agency's data is being moved to another database and writes are paused. Retry after ${MOVE_RETRY_AFTER_SECONDS} seconds.`;

/**
 * The 503 of a write that meets a move: the key's gate knew of the move, or the write reached
 * the old shard's fence (its triggers abort with `agency_moving`; migration 0011).
 */
export const agencyMovingError = () => new ApiError("agency_moving", writesPausedMessage, { headers: { "Retry-After": String(MOVE_RETRY_AFTER_SECONDS) } });

/** True when a D1 write was refused by a move's fence. Drizzle wraps D1's error in its own (`cause`). */
export function isAgencyMovingError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message.includes("agency_moving")) return true;
  }
  return false;
}

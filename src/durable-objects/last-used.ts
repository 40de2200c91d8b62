import { writeLastUsed, type UsedRecord } from "@/domain/auth/last-used";

/** How often a key's `last_used_at` is written at most: the column is up to this stale. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * A key's (or grant's) `last_used_at`, written behind by its AccessGate: at most one D1 write a
 * minute, however busy the key, and never one on the request's path (the response does not
 * wait for it). The write only moves the time forward (writeLastUsed), so a restarted gate
 * racing an old write cannot set it back.
 */
export class LastUsedWriter {
  private writtenAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly ctx: DurableObjectState) {}

  /** `db`: the shard of the agency. */
  touch(table: UsedRecord, id: string, db: D1Database, now = Date.now()): void {
    if (now - this.writtenAt < LAST_USED_WRITE_INTERVAL_MS) return;
    this.writtenAt = now;
    const at = new Date(now).toISOString();
    const write = writeLastUsed(db, table, id, at).then(
      () => undefined,
      // A lost write is retried by the next request rather than a minute later.
      () => {
        if (this.writtenAt === now) this.writtenAt = Number.NEGATIVE_INFINITY;
      },
    );
    this.ctx.waitUntil(write);
  }
}

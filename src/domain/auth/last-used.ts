/** The records whose `last_used_at` a gate writes: an API key's row, or a connected app's grant. */
const TOUCH = {
  api_keys: "UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)",
  app_grants: "UPDATE app_grants SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)",
} as const;

export type UsedRecord = keyof typeof TOUCH;

/**
 * Sets the record's `last_used_at` to `at`. The write only moves the time forward, so a
 * restarted gate racing an old write cannot set it back. `db`: the shard of the agency.
 */
export const writeLastUsed = (db: D1Database, table: UsedRecord, id: string, at: string) => db.prepare(TOUCH[table]).bind(at, id).run();

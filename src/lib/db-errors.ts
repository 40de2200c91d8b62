/**
 * True when a D1 write failed on a UNIQUE index. Drizzle wraps driver errors in
 * DrizzleQueryError (the D1 message is on `cause`); `db.batch` rethrows D1's own error.
 * D1 has no interactive transactions, so these indexes are what settles races.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/UNIQUE constraint failed/i.test(e.message)) return true;
  }
  return false;
}

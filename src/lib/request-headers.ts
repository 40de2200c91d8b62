/**
 * The request headers the API reads besides Authorization, and their limits: the routes
 * document them (src/lib/openapi.ts), the middleware enforce them.
 */

/**
 * Our bookmarks are D1's (00000000-00000004-00000000-<32 hex>) tagged with the shard they belong
 * to: `DB_EU:00000000-...`. An untagged D1 bookmark (from before shards) is accepted and ignored;
 * anything else is refused before it reaches D1.
 */
export const BOOKMARK_PATTERN = /^(?:(DB(?:_[A-Z0-9][A-Z0-9_]{0,62})?):)?([0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32})$/;
export const BOOKMARK_LENGTH = 124;
export const BOOKMARK_HEADER = "X-D1-Bookmark";

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

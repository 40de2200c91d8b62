import { isScope, scopes, WILDCARD_SCOPE, type Scope } from "./scopes";

/**
 * Which scopes a consent page offers for an app's request (docs/decisions/connected-apps.md). An
 * app names each scope it needs, as a key does; `*` is never granted to an app, so the agency
 * always sees in words what it approves. `offline_access`, which some MCP hosts add out of
 * habit, asks for nothing here: every grant gets a refresh token.
 */

const IGNORED = new Set(["offline_access"]);

export const oauthScopeMessages = {
  unknown: (scope: string) => `Unknown scope: ${scope}. Scopes: ${scopes.join(", ")}`,
  wildcard: `An app is not granted ${WILDCARD_SCOPE}: name each scope it needs (${scopes.join(", ")})`,
  missing: `Name the scopes your app needs in the scope parameter, separated by spaces: ${scopes.join(", ")}`,
} as const;

/**
 * The scopes to put before the agency, in the API's order; or the `invalid_scope` reason. An
 * empty request gets `defaults` (an MCP host: the tools' scopes), or is refused when there are none.
 */
export function scopesToGrant(requested: readonly string[], defaults: readonly Scope[] | null): { scopes: Scope[] } | { error: string } {
  const asked = requested.filter((scope) => !IGNORED.has(scope));
  for (const scope of asked) {
    if (scope === WILDCARD_SCOPE) return { error: oauthScopeMessages.wildcard };
    if (!isScope(scope)) return { error: oauthScopeMessages.unknown(scope.slice(0, 100)) };
  }
  const wanted = asked.length > 0 ? asked : (defaults ?? []);
  if (wanted.length === 0) return { error: oauthScopeMessages.missing };
  return { scopes: scopes.filter((scope) => wanted.includes(scope)) };
}

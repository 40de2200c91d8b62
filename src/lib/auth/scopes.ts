/** Every scope of the Partner API (SPEC.md); `*` grants all of them. */
export const scopes = [
  "calendar",
  "appointments",
  "analytics",
  "contacts",
  "messages",
  "paths",
  "fields",
  "lead-orders",
  "voice-ai",
  "users",
  "settings",
  "webhooks",
] as const;

export type Scope = (typeof scopes)[number];
export const WILDCARD_SCOPE = "*";

export const grantedScopeValues = [WILDCARD_SCOPE, ...scopes] as const;

/** True when the key holds `*` or any one of the accepted scopes. */
export function hasAnyScope(granted: readonly string[], accepted: readonly Scope[]): boolean {
  if (granted.includes(WILDCARD_SCOPE)) return true;
  return accepted.some((scope) => granted.includes(scope));
}

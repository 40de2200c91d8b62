/** Every scope of the Partner API (docs/decisions/authentication.md); `*` grants all of them. */
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

/** What each scope grants, in words: beside a key's checkbox and on an app's consent page. */
export const scopeDescriptions: Record<(typeof grantedScopeValues)[number], string> = {
  "*": "all Partner API scopes",
  calendar: "availability and create bookings",
  appointments: "list, update, cancel appointments; booking widgets; hours",
  analytics: "path catalog (thin list) and Path Analytics reports",
  contacts: "contact CRM read and write, tags, sources, restore",
  messages: "inbox, SMS, notes, read state",
  paths: "path builder CRUD, publish, history",
  fields: "custom field definitions; delete archives",
  "lead-orders": "lead order list, pause or resume, cancel, patch, settings",
  "voice-ai": "agents, outbound calls, cancel, wallet balance",
  users: "team members, invites, roles",
  settings: "curated agency and agent settings, without OAuth secrets",
  webhooks: "webhook endpoints, their deliveries and events",
};

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

/** True when the key holds `*` or any one of the accepted scopes. */
export function hasAnyScope(granted: readonly string[], accepted: readonly Scope[]): boolean {
  if (granted.includes(WILDCARD_SCOPE)) return true;
  return accepted.some((scope) => granted.includes(scope));
}

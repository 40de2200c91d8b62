import { grantedScopeValues } from "@/lib/auth/scopes";

/** What each scope grants (SPEC, Authentication), beside its checkbox. */
const GRANTS: Record<(typeof grantedScopeValues)[number], string> = {
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

const scopeId = (prefix: string, scope: string) => `${prefix}-scope-${scope === "*" ? "all" : scope}`;

/** One checkbox per scope, each with its label; `idPrefix` keeps ids unique when a page has two such fieldsets. */
export const ScopeFields = (props: { idPrefix: string; checked: readonly string[]; describedBy?: string }) => (
  <fieldset class="scopes" aria-describedby={props.describedBy}>
    <legend>Scopes</legend>
    {grantedScopeValues.map((scope) => (
      <div class="check">
        <input
          type="checkbox"
          id={scopeId(props.idPrefix, scope)}
          name="scopes"
          value={scope}
          checked={props.checked.includes(scope)}
          data-scope={scope}
        />
        <label for={scopeId(props.idPrefix, scope)}>
          <code>{scope}</code> — {GRANTS[scope]}
        </label>
      </div>
    ))}
  </fieldset>
);

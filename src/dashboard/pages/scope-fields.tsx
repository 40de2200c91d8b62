import { grantedScopeValues, scopeDescriptions } from "@/lib/auth/scopes";

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
          <code>{scope}</code> — {scopeDescriptions[scope]}
        </label>
      </div>
    ))}
  </fieldset>
);

import type { ApiKeyRow } from "@/domain/auth/api-keys.repository";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { CsrfField, ErrorMessage, Instant, Notice, RecordTable } from "./components";
import { keyStatus } from "./key-status";
import { Layout } from "./layout";
import { ScopeFields } from "./scope-fields";

export interface CreateKeyValues {
  name?: string;
  scopes: string[];
  neverExpires: boolean;
}

/** Integrations > API keys: every key of the agency and the form to create one. */
export const KeysPage = (props: {
  session: DashboardSession;
  keys: ApiKeyRow[];
  now: string;
  notice?: string;
  error?: string;
  /** The refusal of "never expires" for these scopes, shown beside the (unchecked) box. */
  neverExpiresError?: string;
  values?: CreateKeyValues;
}) => {
  const values = props.values ?? { scopes: [], neverExpires: false };
  return (
    <Layout title="API keys" session={props.session} section="keys">
      <Notice text={props.notice} />
      <p>
        Keys let your integrations call the Partner API for {props.session.agencyName}. Each key holds scopes; an access token
        expires 30 days after it is created or renewed, except for keys whose only scope is <code>calendar</code>, which may
        never expire.
      </p>
      <RecordTable
        caption="API keys, newest first"
        columns={["Name", "Scopes", "Created", "Expires", "Last used", "Status"]}
        rows={props.keys}
        empty="This agency has no API keys yet."
        row={(key) => (
          <tr data-key={key.id}>
            <th scope="row">
              <a href={paths.key(key.id)}>{key.name}</a>
            </th>
            <td>{key.scopes.join(", ")}</td>
            <td>
              <Instant at={key.createdAt} />
            </td>
            <td>
              <Instant at={key.expiresAt} />
            </td>
            <td>
              <Instant at={key.lastUsedAt} />
            </td>
            <td class={`status status-${keyStatus(key, props.now)}`}>{keyStatus(key, props.now)}</td>
          </tr>
        )}
      />

      <h2 id="create">Create a key</h2>
      <ErrorMessage text={props.error} />
      <form method="post" action={paths.keys} class="create-key" aria-describedby={props.error ? "form-error" : undefined}>
        <CsrfField session={props.session} />
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" name="name" type="text" required maxlength={100} value={values.name ?? ""} aria-describedby="key-name-hint" />
          <p class="hint" id="key-name-hint">
            What the key is for, e.g. “CRM sync”.
          </p>
        </div>
        <ScopeFields idPrefix="create" checked={values.scopes} />
        <div class={props.neverExpiresError ? "check never-expires refused" : "check never-expires"}>
          <input
            type="checkbox"
            id="never-expires"
            name="never_expires"
            value="on"
            checked={values.neverExpires}
            aria-describedby={props.neverExpiresError ? "never-expires-hint never-expires-error" : "never-expires-hint"}
          />
          <label for="never-expires">Never expires</label>
          <p class="hint" id="never-expires-hint">
            Only for a key whose only scope is <code>calendar</code> (voice and static integrations).
          </p>
          {props.neverExpiresError ? (
            <p class="error" role="alert" id="never-expires-error">
              {props.neverExpiresError}
            </p>
          ) : null}
        </div>
        <button type="submit">Create key</button>
      </form>
    </Layout>
  );
};

import type { ApiKeyRow } from "@/domain/auth/api-keys.repository";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { ActionForm, ConfirmForm, CsrfField, ErrorMessage, Instant, Notice, RecordTable } from "./components";
import { keyStatus } from "./key-status";
import { Layout } from "./layout";
import { ScopeFields } from "./scope-fields";

export interface SecurityEventView {
  type: string;
  ip: string | null;
  createdAt: string;
}

const EVENT_TEXT: Record<string, string> = {
  rotate_key_replay: "A rotate key that was already used to renew was presented again (someone may hold an old copy).",
};

/** One key: its record, the edit form, secret resets, revocation and security events. */
export const KeyPage = (props: {
  session: DashboardSession;
  apiKey: ApiKeyRow;
  events: SecurityEventView[];
  now: string;
  notice?: string;
  error?: string;
  values?: { name?: string; scopes: string[] };
}) => {
  const { apiKey: key, session } = props;
  const status = keyStatus(key, props.now);
  const standard = key.kind === "standard";
  const values = props.values ?? { name: key.name, scopes: key.scopes };
  return (
    <Layout title={`API key “${key.name}”`} session={session} section="keys">
      <p>
        <a href={paths.keys}>← All API keys</a>
      </p>
      <Notice text={props.notice} />
      <ErrorMessage text={props.error} />
      <dl class="summary">
        <dt>Status</dt>
        <dd class={`status status-${status}`}>{status}</dd>
        <dt>Kind</dt>
        <dd>{standard ? "API key" : "Legacy calendar token (never expires, cannot be renewed)"}</dd>
        <dt>Scopes</dt>
        <dd>{key.scopes.join(", ")}</dd>
        <dt>Created</dt>
        <dd>
          <Instant at={key.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Instant at={key.expiresAt} />
        </dd>
        <dt>Last used</dt>
        <dd>
          <Instant at={key.lastUsedAt} /> <span class="hint">(updated at most once a minute)</span>
        </dd>
        {key.revokedAt ? (
          <>
            <dt>Revoked</dt>
            <dd>
              <Instant at={key.revokedAt} />
            </dd>
          </>
        ) : null}
      </dl>

      {key.revokedAt ? null : (
        <>
          <h2>Edit</h2>
          <form method="post" action={paths.key(key.id)} aria-describedby={props.error ? "form-error" : undefined}>
            <CsrfField session={session} />
            <div class="field">
              <label for="edit-name">Name</label>
              <input id="edit-name" name="name" type="text" required maxlength={100} value={values.name ?? ""} />
            </div>
            {standard ? (
              <>
                <ScopeFields idPrefix="edit" checked={values.scopes} describedBy="scopes-hint" />
                <p class="hint" id="scopes-hint">
                  The next request made with this key sees the new scopes.
                  {key.expires ? "" : " This key never expires, so its only scope must stay calendar."}
                </p>
              </>
            ) : null}
            <button type="submit">Save changes</button>
          </form>
        </>
      )}

      {standard && !key.revokedAt ? (
        <>
          <h2>Reset secrets</h2>
          <p id="rotate-secrets-hint">
            Rotate secrets replaces both the access token and the rotate key: the current ones stop working at once, and the new
            ones are shown once.
          </p>
          <ActionForm action={`${paths.key(key.id)}/rotate-secrets`} session={session} label="Rotate secrets" describedBy="rotate-secrets-hint" />
          <p id="regenerate-hint">
            Regenerate rotate key replaces only the rotate key (for renewing the token); the access token keeps working.
          </p>
          <ActionForm
            action={`${paths.key(key.id)}/regenerate-rotate-key`}
            session={session}
            label="Regenerate rotate key"
            describedBy="regenerate-hint"
          />
        </>
      ) : null}

      {key.revokedAt ? null : (
        <>
          <h2>Revoke</h2>
          <p>
            <a href={`${paths.key(key.id)}/revoke`} class="danger">
              Revoke this key…
            </a>{" "}
            (asks for confirmation)
          </p>
        </>
      )}

      <h2>Security events</h2>
      <RecordTable
        caption="Security events, newest first"
        columns={["When", "What", "From IP"]}
        rows={props.events}
        empty="No security events for this key."
        row={(event) => (
          <tr>
            <td>
              <Instant at={event.createdAt} />
            </td>
            <td>{EVENT_TEXT[event.type] ?? event.type}</td>
            <td>{event.ip ?? "unknown"}</td>
          </tr>
        )}
      />
    </Layout>
  );
};

/** The confirmation step of a revocation: a GET shows it, only its form's POST revokes. */
export const RevokePage = (props: { session: DashboardSession; apiKey: ApiKeyRow }) => (
  <Layout title={`Revoke “${props.apiKey.name}”?`} session={props.session} section="keys">
    <p id="revoke-warning">
      Every request made with this key's access token will fail with 401 from the next one on. This cannot be undone.
    </p>
    <ConfirmForm action={`${paths.key(props.apiKey.id)}/revoke`} session={props.session} label="Revoke key" warningId="revoke-warning" cancelHref={paths.key(props.apiKey.id)} />
  </Layout>
);

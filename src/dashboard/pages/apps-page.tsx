import type { AppGrantRow, ListedGrant } from "@/domain/auth/app-grants.repository";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { ConfirmForm, Instant, Notice, RecordTable } from "./components";
import { Layout } from "./layout";

/** Integrations > Connected apps: every app and AI agent the agency connected through OAuth, with who approved it. */
export const AppsPage = (props: { session: DashboardSession; grants: ListedGrant[]; notice?: string }) => (
  <Layout title="Connected apps" session={props.session} section="apps">
    <Notice text={props.notice} />
    <p>
      Apps and AI agents (such as Claude or ChatGPT) that an owner or admin of {props.session.agencyName} allowed to use the Partner API.
      Each acts only within the scopes it was granted; revoke one to end its access at once.
    </p>
    <RecordTable
      caption="Connected apps, newest first"
      columns={["App", "Scopes", "Granted by", "Connected", "Last used", "Access"]}
      rows={props.grants}
      empty="No apps are connected to this agency."
      row={({ grant, approverName }) => (
        <tr data-grant={grant.id}>
          <th scope="row">
            {grant.clientName}
            {grant.clientDomain ? <span class="hint"> ({grant.clientDomain})</span> : null}
            <br />
            <span class="hint">returns to {grant.redirectHost}</span>
          </th>
          <td>{grant.scopes.join(", ")}</td>
          <td>{approverName ?? "a former member"}</td>
          <td>
            <Instant at={grant.createdAt} />
          </td>
          <td>
            <Instant at={grant.lastUsedAt} />
          </td>
          <td>
            {grant.revokedAt ? (
              <span class="status status-revoked">
                revoked <Instant at={grant.revokedAt} />
              </span>
            ) : (
              <a href={`${paths.app(grant.id)}/revoke`} class="danger">
                Revoke…
              </a>
            )}
          </td>
        </tr>
      )}
    />
  </Layout>
);

/** The confirmation step of a revocation: a GET shows it, only its form's POST revokes. */
export const RevokeAppPage = (props: { session: DashboardSession; grant: AppGrantRow }) => (
  <Layout title={`Revoke “${props.grant.clientName}”?`} session={props.session} section="apps">
    <p id="revoke-app-warning">
      {props.grant.clientName} loses its access to {props.session.agencyName} at once: its next request fails with 401, and it cannot refresh
      its tokens. To connect it again, someone must approve it again.
    </p>
    <ConfirmForm action={`${paths.app(props.grant.id)}/revoke`} session={props.session} label="Revoke access" warningId="revoke-app-warning" cancelHref={paths.apps} />
  </Layout>
);

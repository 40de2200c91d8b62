import { isScope, scopeDescriptions } from "@/lib/auth/scopes";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { CsrfField } from "./components";
import { Layout } from "./layout";
import { askForLink } from "./message-page";

/** What the page says of the app; every string but `resource` came from the app itself (hono/jsx escapes it). */
export interface ConsentFacts {
  clientName: string;
  /** For an app identified by a metadata document URL: that URL's host, which the app controls. */
  clientDomain?: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
  scopes: readonly string[];
  /** What the tokens will be for. */
  resource: "api" | "mcp";
}

const RESOURCE_TEXT = { api: "the Partner API", mcp: "the Partner API's MCP server (AI agent tools)" } as const;

/** Who the app says it is, and how far that can be trusted. */
const Identity = (props: { facts: ConsentFacts }) =>
  props.facts.clientDomain ? (
    <p>
      Published by <strong>{props.facts.clientDomain}</strong>, which vouches for this name.
    </p>
  ) : (
    <p>This app registered itself: its name is its own claim, not verified by us.</p>
  );

/**
 * The consent page (the OAuth authorization endpoint): the app's name, where its access goes,
 * and each scope in words, with Approve and Deny. The form's contract is fixed (`decision` =
 * `approve` | `deny`, the `handle`, the CSRF field) so any client can drive it.
 */
export const ConsentPage = (props: { session: DashboardSession; facts: ConsentFacts; handle: string }) => {
  const { facts } = props;
  return (
    <Layout title={`Connect ${facts.clientName} to ${props.session.agencyName}?`} session={props.session} section="apps">
      <Identity facts={facts} />
      <p>
        If you approve, <strong>{facts.clientName}</strong> gets access to {RESOURCE_TEXT[facts.resource]} for{" "}
        <strong>{props.session.agencyName}</strong>, and its access is sent to <strong class="redirect-host">{facts.redirectHost}</strong>.
      </p>
      {facts.redirectIsLoopback ? (
        <p class="warning" role="alert">
          This sends access to an app on your own computer. Continue only if you just started connecting it from that computer.
        </p>
      ) : null}
      <h2 id="scopes">It asks to</h2>
      <ul class="consent-scopes" aria-labelledby="scopes">
        {facts.scopes.map((scope) => (
          <li data-scope={scope}>
            <code>{scope}</code> — {isScope(scope) ? scopeDescriptions[scope] : scope}
          </li>
        ))}
      </ul>
      <p>
        It keeps this access until you revoke it under <a href={paths.apps}>Connected apps</a>, or stops using it for 30 days.
      </p>
      <form method="post" action={paths.authorize} class="consent">
        <CsrfField session={props.session} />
        <input type="hidden" name="handle" value={props.handle} />
        <button type="submit" name="decision" value="approve">
          Approve
        </button>{" "}
        <button type="submit" name="decision" value="deny" class="secondary">
          Deny
        </button>
      </form>
    </Layout>
  );
};

/** The consent page of a visitor without a dashboard session: sign in with a link, then come back here. */
export const ConnectSignInPage = (props: { clientName: string; redirectHost: string }) => (
  <Layout title={`Sign in to connect ${props.clientName}`}>
    <p>
      <strong>{props.clientName}</strong> (returning to <strong>{props.redirectHost}</strong>) asks to connect to your agency. Only the
      agency's owner and admins can approve it, signed in to the agency dashboard.
    </p>
    <p>
      Open your dashboard sign-in link in this browser: you will come back to this page to approve or deny. {askForLink}
    </p>
  </Layout>
);

import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { CopyStatus, Instant, SecretField } from "./components";
import { Layout } from "./layout";
import type { Section } from "./layout";

export interface ShownSecret {
  id: string;
  label: string;
  value: string;
  hint?: string;
}

/**
 * Secrets shown once, on the response to the action that made them: only their hashes are
 * stored (webhook secrets aside, which sign), and the response is never cached.
 */
export const SecretsPage = (props: {
  session: DashboardSession;
  section: Section;
  title: string;
  intro: string;
  secrets: ShownSecret[];
  expiresAt?: string | null;
  back: { href: string; label: string };
}) => (
  <Layout title={props.title} session={props.session} section={props.section}>
    <p class="notice" role="status">
      {props.intro}
    </p>
    <p>
      <strong>Copy {props.secrets.length > 1 ? "them" : "it"} now: this page is the only time {props.secrets.length > 1 ? "they are" : "it is"} shown.</strong>
    </p>
    {props.secrets.map((secret) => (
      <SecretField id={secret.id} label={secret.label} value={secret.value} hint={secret.hint} />
    ))}
    <CopyStatus />
    {props.expiresAt !== undefined ? (
      <p>
        The access token expires: <Instant at={props.expiresAt} />.
      </p>
    ) : null}
    <p>
      <a href={props.back.href}>{props.back.label}</a>
    </p>
  </Layout>
);

import type { AuditListRow } from "@/domain/audit/audit-log";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { Instant, RecordTable } from "./components";
import { Layout } from "./layout";

const ACTION_TEXT: Record<string, string> = {
  "key.created": "created an API key",
  "key.updated": "edited an API key",
  "key.revoked": "revoked an API key",
  "key.secrets_rotated": "rotated an API key's secrets",
  "key.rotate_key_regenerated": "regenerated an API key's rotate key",
  "webhook_endpoint.created": "added a webhook endpoint",
  "webhook_endpoint.updated": "edited a webhook endpoint",
  "webhook_endpoint.enabled": "enabled a webhook endpoint",
  "webhook_endpoint.disabled": "disabled a webhook endpoint",
  "webhook_endpoint.deleted": "deleted a webhook endpoint",
  "webhook_endpoint.secret_rotated": "rotated a webhook endpoint's secret",
  "webhook_endpoint.tested": "sent a test event to a webhook endpoint",
  "dashboard.link_issued": "issued a dashboard sign-in link",
  "dashboard.signed_in": "signed in to the dashboard",
  "dashboard.signed_out": "signed out of the dashboard",
  "app.authorized": "connected an app",
  "app.revoked": "revoked a connected app",
};

const actorText = (row: AuditListRow) => {
  if (row.actorType === "operator") return "Platform operator";
  if (row.actorType === "api_key") return row.keyName ? `API key “${row.keyName}”` : "An API key";
  if (row.actorType === "app_grant") return row.appName ? `App “${row.appName}”` : "A connected app";
  return row.memberName ?? "A former member";
};

const TARGET_KINDS: Record<string, string> = { api_key: "API key", webhook_endpoint: "Webhook endpoint", app_grant: "App" };

/** The target as the entry recorded it: a key's name, an endpoint's URL, an app's name, a member's name. */
const targetText = (row: AuditListRow) => {
  const label = row.detail?.name ?? row.detail?.url ?? row.detail?.client_name;
  const kind = TARGET_KINDS[row.targetType] ?? "Member";
  return typeof label === "string" ? `${kind} “${label}”` : kind;
};

/** `scopes: contacts → contacts, fields`, for entries that changed fields. */
const changesText = (row: AuditListRow) => {
  const changes = row.detail?.changes;
  if (!changes || typeof changes !== "object") return "";
  const show = (v: unknown) => (Array.isArray(v) ? v.join(", ") : v === null ? "none" : String(v));
  return Object.entries(changes as Record<string, { from: unknown; to: unknown }>)
    .map(([field, { from, to }]) => `${field}: ${show(from)} → ${show(to)}`)
    .join("; ");
};

/** Who did what to the agency's keys, webhooks and dashboard sessions, newest first. */
export const AuditPage = (props: { session: DashboardSession; rows: AuditListRow[]; page: number; hasMore: boolean }) => (
  <Layout title="Audit log" session={props.session} section="audit">
    <p>Changes to API keys and webhook endpoints, from this dashboard, the Partner API and the platform operator, and dashboard sign-ins.</p>
    <RecordTable
      caption={`Audit log, newest first${props.page > 1 ? `, page ${props.page}` : ""}`}
      columns={["When", "Who", "Action", "Target", "Changes"]}
      rows={props.rows}
      empty="Nothing recorded yet."
      row={(row) => (
        <tr data-action={row.action}>
          <td>
            <Instant at={row.createdAt} />
          </td>
          <td>{actorText(row)}</td>
          <td>{ACTION_TEXT[row.action] ?? row.action}</td>
          <td>{targetText(row)}</td>
          <td>{changesText(row)}</td>
        </tr>
      )}
    />
    <nav aria-label="Audit log pages">
      {props.page > 1 ? <a href={`${paths.auditLog}?page=${props.page - 1}`}>Newer entries</a> : null}{" "}
      {props.hasMore ? <a href={`${paths.auditLog}?page=${props.page + 1}`}>Older entries</a> : null}
    </nav>
  </Layout>
);

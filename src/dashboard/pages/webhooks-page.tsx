import type { WebhookEndpointRow } from "@/domain/webhook-endpoints/webhook-endpoints.repository";
import { subscribableTypes } from "@/domain/webhook-endpoints/webhook-endpoints.rules";
import type { webhookAttempts } from "@/db/schema";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { ActionForm, CsrfField, ErrorMessage, Instant, Notice, RecordTable } from "./components";
import { Layout } from "./layout";

type Attempt = typeof webhookAttempts.$inferSelect;

export interface EndpointView {
  endpoint: WebhookEndpointRow;
  attempts: Attempt[];
}

export interface CreateEndpointValues {
  url?: string;
  events: string[];
  description?: string;
}

const attemptOutcome = (a: Attempt) => (a.delivered ? `delivered (HTTP ${a.statusCode})` : `failed: ${a.error ?? `HTTP ${a.statusCode}`}`);

const Endpoint = (props: { view: EndpointView; session: DashboardSession }) => {
  const { endpoint, attempts } = props.view;
  const base = paths.webhook(endpoint.id);
  const headingId = `endpoint-${endpoint.id}`;
  return (
    <section class="endpoint" aria-labelledby={headingId} data-endpoint={endpoint.id}>
      <h3 id={headingId}>{endpoint.url}</h3>
      <dl class="summary">
        <dt>Status</dt>
        <dd class={`status status-${endpoint.status}`}>
          {endpoint.status}
          {endpoint.disabledReason === "failing" ? " (turned off after 5 days of failed deliveries)" : ""}
        </dd>
        <dt>Events</dt>
        <dd>{endpoint.events.includes("*") ? "all events" : endpoint.events.join(", ")}</dd>
        {endpoint.description ? (
          <>
            <dt>Description</dt>
            <dd>{endpoint.description}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          <Instant at={endpoint.createdAt} />
        </dd>
      </dl>
      <div class="actions">
        {endpoint.status === "enabled" ? (
          <ActionForm action={`${base}/disable`} session={props.session} label="Disable" />
        ) : (
          <ActionForm action={`${base}/enable`} session={props.session} label="Enable" />
        )}
        <ActionForm action={`${base}/test`} session={props.session} label="Send test event" />
        <ActionForm action={`${base}/rotate-secret`} session={props.session} label="Rotate secret" />
      </div>
      <RecordTable
        caption={<>Recent deliveries to {endpoint.url}, newest first</>}
        columns={["When", "Event", "Attempt", "Outcome", "Time taken"]}
        rows={attempts}
        empty="No deliveries yet."
        row={(a) => (
          <tr>
            <td>
              <Instant at={a.attemptedAt} />
            </td>
            <td>
              <code>{a.eventType}</code>
            </td>
            <td>{a.attempt}</td>
            <td>{attemptOutcome(a)}</td>
            <td>{a.durationMs} ms</td>
          </tr>
        )}
      />
    </section>
  );
};

/** Integrations > Webhooks: the agency's endpoints with their recent deliveries, and the form to add one. */
export const WebhooksPage = (props: { session: DashboardSession; endpoints: EndpointView[]; notice?: string; error?: string; values?: CreateEndpointValues }) => {
  const values = props.values ?? { events: [] };
  return (
    <Layout title="Webhooks" session={props.session} section="webhooks">
      <Notice text={props.notice} />
      <p>Endpoints receive this agency's events as they happen, signed per Standard Webhooks with the endpoint's secret.</p>
      <h2>Endpoints</h2>
      {props.endpoints.length === 0 ? <p>This agency has no webhook endpoints yet.</p> : props.endpoints.map((view) => <Endpoint view={view} session={props.session} />)}

      <h2 id="create">Add an endpoint</h2>
      <ErrorMessage text={props.error} />
      <form method="post" action={paths.webhooks} aria-describedby={props.error ? "form-error" : undefined}>
        <CsrfField session={props.session} />
        <div class="field">
          <label for="endpoint-url">URL</label>
          <input id="endpoint-url" name="url" type="url" required value={values.url ?? ""} aria-describedby="endpoint-url-hint" />
          <p class="hint" id="endpoint-url-hint">
            A public https URL. Redirects are not followed.
          </p>
        </div>
        <div class="field">
          <label for="endpoint-description">Description (optional)</label>
          <input id="endpoint-description" name="description" type="text" maxlength={500} value={values.description ?? ""} />
        </div>
        <fieldset class="events">
          <legend>Events</legend>
          <div class="check">
            <input type="checkbox" id="event-all" name="events" value="*" checked={values.events.includes("*")} />
            <label for="event-all">All events</label>
          </div>
          {subscribableTypes.map((type) => (
            <div class="check">
              <input type="checkbox" id={`event-${type}`} name="events" value={type} checked={values.events.includes(type)} />
              <label for={`event-${type}`}>
                <code>{type}</code>
              </label>
            </div>
          ))}
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>
    </Layout>
  );
};

import type { Context } from "hono";
import * as ops from "@/domain/webhook-endpoints/webhook-endpoint-operations";
import { listAttempts, listEndpoints } from "@/domain/webhook-endpoints/webhook-endpoints.repository";
import { CreateEndpointBody } from "@/routes/webhook-endpoints/webhook-endpoints.schemas";
import { MAX_ENDPOINTS_PER_AGENCY } from "@/domain/webhook-endpoints/webhook-endpoints.rules";
import { memberActor, type DashboardBindings } from "@/dashboard/http/dashboard-env";
import { listField, parseWith, textField } from "../http/form";
import { render } from "../http/render";
import { SecretsPage } from "../pages/secrets-page";
import { WebhooksPage, type CreateEndpointValues } from "../pages/webhooks-page";
import { paths } from "@/dashboard/http/paths";
import { idParam, orFormError } from "./form-errors";

type Ctx = Context<DashboardBindings>;

/** Deliveries shown per endpoint; the Partner API's deliveries log has them all. */
const RECENT_ATTEMPTS = 5;

const notices: Record<string, string> = {
  enabled: "The endpoint was enabled: it receives events again from now on.",
  disabled: "The endpoint was disabled: it receives no events until it is enabled.",
  tested: "A test event (ping) was sent to the endpoint; its delivery appears below within seconds.",
};

/** Endpoint changes from the dashboard go through the Partner API's own implementation, recorded as the member's. */
const asMember = (c: Ctx): ops.EndpointActionContext => ({ db: c.var.db, env: c.env, actor: memberActor(c) });

const endpointInUrl = (c: Ctx) => idParam(c.req.param("endpointId"));

async function renderWebhooks(c: Ctx, options: { error?: string; values?: CreateEndpointValues; status?: 200 | 400 | 409 } = {}) {
  const { agencyId } = c.var.session;
  const { rows } = await listEndpoints(c.var.db, agencyId, { offset: 0, read: MAX_ENDPOINTS_PER_AGENCY });
  // At most MAX_ENDPOINTS_PER_AGENCY lookups, side by side.
  const endpoints = await Promise.all(
    rows.map(async (endpoint) => ({
      endpoint,
      attempts: (await listAttempts(c.var.db, agencyId, endpoint.id, { offset: 0, read: RECENT_ATTEMPTS })).rows,
    })),
  );
  return render(
    c,
    <WebhooksPage
      session={c.var.session}
      endpoints={endpoints}
      notice={notices[c.req.query("notice") ?? ""]}
      error={options.error}
      values={options.values}
    />,
    options.status ?? 200,
  );
}

export const listWebhooks = (c: Ctx) => renderWebhooks(c);

export async function createWebhook(c: Ctx) {
  const form = c.var.form;
  const values: CreateEndpointValues = { url: textField(form, "url"), events: listField(form, "events"), description: textField(form, "description") };
  return orFormError(
    async () => {
      // The Partner API's own body schema and rules (URL rules, endpoint limit), with its messages.
      const body = parseWith(CreateEndpointBody, values);
      const endpoint = await ops.createEndpoint(asMember(c), c.var.session.agencyId, body);
      return render(
        c,
        <SecretsPage
          session={c.var.session}
          section="webhooks"
          title="Endpoint added"
          intro={`Events are now delivered to ${endpoint.url}.`}
          secrets={[{ id: "webhook-secret", label: "Signing secret", value: endpoint.secret, hint: "Verify each delivery's signature with it (Standard Webhooks)." }]}
          back={{ href: paths.webhooks, label: "Back to webhooks" }}
        />,
        201,
      );
    },
    (refused) => renderWebhooks(c, { error: refused.message, values, status: refused.status }),
  );
}

const setStatus = (status: "enabled" | "disabled") => async (c: Ctx) => {
  await ops.updateEndpoint(asMember(c), c.var.session.agencyId, endpointInUrl(c), { status });
  return c.redirect(`${paths.webhooks}?notice=${status}`, 303);
};

export const enableWebhook = setStatus("enabled");
export const disableWebhook = setStatus("disabled");

export async function testWebhook(c: Ctx) {
  await ops.testEndpoint(asMember(c), c.var.session.agencyId, endpointInUrl(c));
  return c.redirect(`${paths.webhooks}?notice=tested`, 303);
}

export async function rotateWebhookSecret(c: Ctx) {
  const endpoint = await ops.rotateEndpointSecret(asMember(c), c.var.session.agencyId, endpointInUrl(c));
  return render(
    c,
    <SecretsPage
      session={c.var.session}
      section="webhooks"
      title="New signing secret"
      intro={`The signing secret of ${endpoint.url} was replaced.`}
      secrets={[
        {
          id: "webhook-secret",
          label: "Signing secret",
          value: endpoint.secret,
          hint: "Deliveries are signed with both the new and the previous secret for 24 hours, so there is time to switch.",
        },
      ]}
      back={{ href: paths.webhooks, label: "Back to webhooks" }}
    />,
  );
}


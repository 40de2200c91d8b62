import type { Context } from "hono";
import { CreateKeyBody, UpdateKeyBody } from "@/admin/admin.schemas";
import * as keys from "@/domain/auth/api-keys.repository";
import type { ApiKeyRow } from "@/domain/auth/api-keys.repository";
import * as keyOps from "@/domain/auth/key-operations";
import { badRequest } from "@/lib/errors";
import { nowIso } from "@/lib/time";
import { memberActor, type DashboardBindings } from "@/dashboard/http/dashboard-env";
import { checked, listField, parseWith, textField } from "../http/form";
import { render } from "../http/render";
import { KeyPage, RevokePage } from "../pages/key-page";
import { KeysPage, type CreateKeyValues } from "../pages/keys-page";
import { SecretsPage } from "../pages/secrets-page";
import { paths } from "@/dashboard/http/paths";
import { idParam, orFormError } from "./form-errors";

type Ctx = Context<DashboardBindings>;

/** The dashboard's wording of the never-expires rule; the operator API keeps its own message. */
export const NEVER_EXPIRES_REFUSED = "Only calendar-only keys can never expire";

const notices: Record<string, string> = {
  saved: "Changes saved. The next request made with this key sees them.",
  revoked: "The key was revoked: requests made with its access token now fail with 401.",
};

/** Key changes from the dashboard go through the operator API's own implementation, recorded as the member's. */
const asMember = (c: Ctx): keyOps.KeyActionContext => ({ db: c.var.db, env: c.env, actor: memberActor(c) });

/** The agency's key named in the URL; another agency's key is the 404 page. */
const keyInUrl = (c: Ctx) => keyOps.requireKey(c.var.db, idParam(c.req.param("keyId")), c.var.session.agencyId);

const renderKeys = async (c: Ctx, options: { error?: string; neverExpiresError?: string; values?: CreateKeyValues; status?: 200 | 400 | 409 } = {}) =>
  render(
    c,
    <KeysPage
      session={c.var.session}
      keys={await keys.listApiKeys(c.var.db, c.var.session.agencyId)}
      now={nowIso()}
      notice={notices[c.req.query("notice") ?? ""]}
      error={options.error}
      neverExpiresError={options.neverExpiresError}
      values={options.values}
    />,
    options.status ?? 200,
  );

const renderKey = async (c: Ctx, key: ApiKeyRow, options: { error?: string; values?: { name?: string; scopes: string[] }; status?: 200 | 400 | 409 } = {}) => {
  const events = await keys.listSecurityEvents(c.var.db, key.id);
  return render(
    c,
    <KeyPage session={c.var.session} apiKey={key} events={events} now={nowIso()} notice={notices[c.req.query("notice") ?? ""]} error={options.error} values={options.values} />,
    options.status ?? 200,
  );
};

export const listKeys = (c: Ctx) => renderKeys(c);

export async function createKey(c: Ctx) {
  const form = c.var.form;
  const values: CreateKeyValues = { name: textField(form, "name"), scopes: listField(form, "scopes"), neverExpires: checked(form, "never_expires") };
  // Checked with other scopes: the form comes back with the box unchecked and the reason beside it
  // (the shared schema below refuses it too, in the operator API's words).
  if (values.neverExpires && values.scopes.length > 0 && !keyOps.mayNeverExpire(values.scopes)) {
    return renderKeys(c, { neverExpiresError: NEVER_EXPIRES_REFUSED, values: { ...values, neverExpires: false }, status: 400 });
  }
  return orFormError(
    async () => {
      // The operator API's own body schema: the same rules ("never expires" only for calendar-only keys) and messages.
      const body = parseWith(CreateKeyBody, { name: values.name, scopes: values.scopes, expires: !values.neverExpires });
      const created = await keyOps.createKey(asMember(c), c.var.session.agencyId, { name: body.name, scopes: body.scopes, expires: body.expires });
      return render(
        c,
        <SecretsPage
          session={c.var.session}
          section="keys"
          title={`Key “${created.key.name}” created`}
          intro={`The key holds: ${created.key.scopes.join(", ")}.`}
          secrets={[
            { id: "access-token", label: "Access token", value: created.accessToken, hint: "Send it as Authorization: Bearer <token> on every request." },
            { id: "rotate-key", label: "Rotate key", value: created.rotateKey, hint: "Used once, with the access token, to renew it (POST /api/v2/auth/token/renew)." },
          ]}
          expiresAt={created.key.expiresAt}
          back={{ href: paths.key(created.key.id), label: "Go to the key" }}
        />,
        201,
      );
    },
    (refused) => renderKeys(c, { error: refused.message, values, status: refused.status }),
  );
}

export async function showKey(c: Ctx) {
  return renderKey(c, await keyInUrl(c));
}

/** POST .../api-keys/:keyId: rename and edit scopes. */
export async function editKey(c: Ctx) {
  const key = await keyInUrl(c);
  const form = c.var.form;
  const values = { name: textField(form, "name"), scopes: listField(form, "scopes") };
  return orFormError(
    async () => {
      // A legacy token's scopes are fixed (its form has no checkboxes); a standard key's list is always sent.
      // The form always sends a name; blank is a mistake, not "keep the old one".
      if (values.name === undefined) throw badRequest("name is required");
      const body = parseWith(UpdateKeyBody, { name: values.name, scopes: key.kind === "standard" ? values.scopes : undefined });
      await keyOps.updateKey(asMember(c), key, { name: body.name, scopes: body.scopes });
      return c.redirect(`${paths.key(key.id)}?notice=saved`, 303);
    },
    (refused) => renderKey(c, key, { error: refused.message, values, status: refused.status }),
  );
}

export async function confirmRevoke(c: Ctx) {
  const key = await keyInUrl(c);
  if (key.revokedAt) return c.redirect(paths.key(key.id), 303);
  return render(c, <RevokePage session={c.var.session} apiKey={key} />);
}

export async function revokeKey(c: Ctx) {
  const key = await keyInUrl(c);
  await keyOps.revokeKey(asMember(c), key);
  return c.redirect(`${paths.key(key.id)}?notice=revoked`, 303);
}

export async function rotateSecrets(c: Ctx) {
  const key = await keyInUrl(c);
  return orFormError(
    async () => {
      const secrets = await keyOps.rotateSecrets(asMember(c), key);
      return render(
        c,
        <SecretsPage
          session={c.var.session}
          section="keys"
          title={`New secrets for “${key.name}”`}
          intro="Both secrets were replaced: the previous access token and rotate key no longer work."
          secrets={[
            { id: "access-token", label: "Access token", value: secrets.accessToken },
            { id: "rotate-key", label: "Rotate key", value: secrets.rotateKey },
          ]}
          expiresAt={secrets.expiresAt}
          back={{ href: paths.key(key.id), label: "Back to the key" }}
        />,
      );
    },
    (refused) => renderKey(c, key, { error: refused.message, status: refused.status }),
  );
}

export async function regenerateRotateKey(c: Ctx) {
  const key = await keyInUrl(c);
  return orFormError(
    async () => {
      const { rotateKey } = await keyOps.regenerateRotateKey(asMember(c), key);
      return render(
        c,
        <SecretsPage
          session={c.var.session}
          section="keys"
          title={`New rotate key for “${key.name}”`}
          intro="The rotate key was replaced: the previous one no longer renews. The access token keeps working."
          secrets={[{ id: "rotate-key", label: "Rotate key", value: rotateKey }]}
          back={{ href: paths.key(key.id), label: "Back to the key" }}
        />,
      );
    },
    (refused) => renderKey(c, key, { error: refused.message, status: refused.status }),
  );
}

import { Hono } from "hono";
import { csrfToken, sameOrigin } from "./auth/csrf";
import { requireSession } from "./auth/require-session";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import * as apps from "./handlers/apps.handlers";
import * as audit from "./handlers/audit.handlers";
import * as consent from "./handlers/consent.handlers";
import { notFoundPage, onDashboardError } from "./handlers/errors";
import * as keys from "./handlers/keys.handlers";
import * as signIn from "./handlers/sign-in.handlers";
import * as webhooks from "./handlers/webhooks.handlers";
import { pageHeaders } from "./http/page-headers";
import { DASHBOARD, paths } from "@/dashboard/http/paths";

/** The consent page's path within the dashboard. */
const CONSENT_PATH = paths.authorize.slice(DASHBOARD.length);

/**
 * The agency dashboard, mounted at /dashboard: server-rendered pages for owners and admins.
 * Handlers run in the order registered, so the order below is the security model: the sign-in
 * pages first, then every other page behind a session, and every POST behind the Origin check
 * and the session's CSRF token. The pages' script and stylesheet are Workers static assets
 * (public/dashboard/assets/), served before the Worker runs.
 */
const dashboard = new Hono<DashboardBindings>();

dashboard.use("*", pageHeaders);
dashboard.post("*", sameOrigin);
dashboard.get("/sign-in/:token", signIn.openLink);
dashboard.get("/signed-out", signIn.signedOut);
// The consent page of connected apps: it finds its own session (a visitor without one is asked
// to sign in and come back; an agent is refused) before the form's CSRF check.
dashboard.get(CONSENT_PATH, consent.showConsent);
dashboard.post(CONSENT_PATH, consent.consentSession, csrfToken, consent.decideConsent);

dashboard.use("*", requireSession);
dashboard.post("*", csrfToken);
dashboard.get("/", signIn.home);
dashboard.post("/sign-out", signIn.signOut);

dashboard.get("/integrations/api-keys", keys.listKeys);
dashboard.post("/integrations/api-keys", keys.createKey);
dashboard.get("/integrations/api-keys/:keyId", keys.showKey);
dashboard.post("/integrations/api-keys/:keyId", keys.editKey);
dashboard.get("/integrations/api-keys/:keyId/revoke", keys.confirmRevoke);
dashboard.post("/integrations/api-keys/:keyId/revoke", keys.revokeKey);
dashboard.post("/integrations/api-keys/:keyId/rotate-secrets", keys.rotateSecrets);
dashboard.post("/integrations/api-keys/:keyId/regenerate-rotate-key", keys.regenerateRotateKey);

dashboard.get("/integrations/webhooks", webhooks.listWebhooks);
dashboard.post("/integrations/webhooks", webhooks.createWebhook);
dashboard.post("/integrations/webhooks/:endpointId/enable", webhooks.enableWebhook);
dashboard.post("/integrations/webhooks/:endpointId/disable", webhooks.disableWebhook);
dashboard.post("/integrations/webhooks/:endpointId/test", webhooks.testWebhook);
dashboard.post("/integrations/webhooks/:endpointId/rotate-secret", webhooks.rotateWebhookSecret);

dashboard.get("/integrations/apps", apps.listApps);
dashboard.get("/integrations/apps/:grantId/revoke", apps.confirmRevokeApp);
dashboard.post("/integrations/apps/:grantId/revoke", apps.revokeApp);

dashboard.get("/audit-log", audit.showAuditLog);

dashboard.all("*", notFoundPage);
dashboard.onError(onDashboardError);

export const dashboardRouter = dashboard;

import { createRouter } from "@/lib/create-router";
import { createApp } from "@/middleware/create-app";
import { partnerCors } from "@/middleware/security-headers";
import { requireTokenPepper } from "@/middleware/require-token-pepper";
import { BEARER_SCHEME, OAUTH_SCHEME, withTypedNullables } from "@/lib/openapi";
import { adminRouter } from "@/admin/admin.index";
import { twilioRouter } from "@/integrations/twilio/twilio.routes";
import { vapiRouter } from "@/integrations/vapi/vapi.routes";
import { dashboardRouter } from "@/dashboard/dashboard.index";
import { mcpRouter } from "@/mcp/mcp.routes";
import { toolScopes } from "@/mcp/tools";
import { scopeDescriptions, scopes } from "@/lib/auth/scopes";
import { OAUTH_PATHS } from "@/domain/auth/oauth-server";
import { oauthRouter, protectedResourceMetadata } from "@/routes/oauth/oauth.routes";
import { authRouter } from "@/routes/auth/auth.index";
import { contactsRouter } from "@/routes/contacts/contacts.index";
import { fieldsRouter } from "@/routes/fields/fields.index";
import { messagesRouter } from "@/routes/messages/messages.index";
import { pathsRouter } from "@/routes/paths/paths.index";
import { analyticsRouter } from "@/routes/analytics/analytics.index";
import { getOpenApiDocument } from "@/routes/meta/meta.routes";
import { voiceAiRouter } from "@/routes/voice-ai/voice-ai.index";
import { leadOrdersRouter } from "@/routes/lead-orders/lead-orders.index";
import { usersRouter } from "@/routes/users/users.index";
import { settingsRouter } from "@/routes/settings/settings.index";
import { appointmentsRouter } from "@/routes/appointments/appointments.index";
import { bookingWidgetsRouter } from "@/routes/booking-widgets/booking-widgets.index";
import { calendarRouter } from "@/routes/calendar/calendar.index";
import { eventTypesSummary } from "@/domain/events/events";
import { referencePage } from "@/lib/reference-page";
import { eventsRouter } from "@/routes/events/events.index";
import { webhookEndpointsRouter } from "@/routes/webhook-endpoints/webhook-endpoints.index";
import { API_BASE } from "@/lib/api-base";

/** Where provider callbacks live (Twilio's, Vapi's): signed by the provider, served even without TOKEN_PEPPER. */
const PROVIDER_CALLBACKS = "/providers/";

/** The Partner API: one router per resource, mounted under /api/v2. */
export function buildPartnerApi() {
  const api = createRouter();
  api.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description:
      "An API key's access token (`pa_...`), a legacy calendar token, or a connected app's OAuth access token, sent as " +
      "`Authorization: Bearer <token>`.",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", OAUTH_SCHEME, {
    type: "oauth2",
    description:
      "For apps and AI agents an agency connects: the authorization code flow with PKCE (S256), approved by the agency's owner " +
      "or an admin on the dashboard's consent page. Register at `POST /oauth/register` (or use a Client ID Metadata Document URL " +
      "as `client_id`); discovery at `/.well-known/oauth-authorization-server`. An access token lives an hour; the token answer " +
      "names `agency_uuid`. Each operation accepts a token holding any one of the scopes it lists. Tokens are opaque, not " +
      "JWTs: nothing is to be read from them, and RFC8725 (JWT best practices) does not apply.",
    flows: {
      authorizationCode: {
        authorizationUrl: OAUTH_PATHS.authorize,
        tokenUrl: OAUTH_PATHS.token,
        refreshUrl: OAUTH_PATHS.token,
        scopes: Object.fromEntries(scopes.map((scope) => [scope, scopeDescriptions[scope]])),
      },
    },
  });
  api.route("/", authRouter);
  api.route("/", contactsRouter);
  api.route("/", fieldsRouter);
  api.route("/", calendarRouter);
  api.route("/", appointmentsRouter);
  api.route("/", bookingWidgetsRouter);
  api.route("/", messagesRouter);
  api.route("/", pathsRouter);
  api.route("/", analyticsRouter);
  api.route("/", leadOrdersRouter);
  api.route("/", usersRouter);
  api.route("/", settingsRouter);
  api.route("/", voiceAiRouter);
  api.route("/", eventsRouter);
  api.route("/", webhookEndpointsRouter);

  let document: ReturnType<typeof api.getOpenAPIDocument> | undefined;
  const openApiDocument = () =>
    (document ??= withTypedNullables(api.getOpenAPIDocument({
      openapi: "3.0.3",
      info: {
        title: "Partner API",
        version: "2.0.0",
        description:
          "Agency-scoped REST API. Every request except token renewal and this document carries " +
          "`Authorization: Bearer <ACCESS_TOKEN>`; every response is limited to the agency that owns the token. " +
          "Errors share one envelope: `{ success: false, error, code }`. Rate limits are per key, per method and " +
          "route, announced in `RateLimit-*` headers; a 429 carries `Retry-After`. POSTs accept an `Idempotency-Key`.",
      },
      // OWASP API9 (improper inventory): say who each server is for and which environment it is.
      servers: [
        {
          url: API_BASE,
          description: "The deployment serving this document: production for partners, or a local development server.",
          "x-internal": false,
        },
      ],
      security: [{ [BEARER_SCHEME]: [] }],
      tags: [
        {
          name: "Authentication",
          description:
            "Token renewal of API keys. Apps and AI agents connect with OAuth 2.1 instead (the `oauth2` security scheme): " +
            "discovery at `/.well-known/oauth-authorization-server`, consent by the agency's owner or an admin in its dashboard.",
        },
        { name: "Contacts", description: "Contact CRM: create, read, update, soft-delete and restore; tags and sources." },
        { name: "Fields", description: "Custom field definitions used by contacts' `custom_fields`." },
        { name: "Messages", description: "Inbox: SMS to and from contacts, internal notes, read state." },
        { name: "Paths", description: "Path builder: draft, publish and version history of paths (funnels); a thin catalog for analytics keys." },
        { name: "Analytics", description: "Path Analytics: views, leads, bookings and conversion rates per path and step." },
        { name: "Calendar", description: "Working hours, available slots and bookings of the agency calendar and of team members' calendars." },
        { name: "Appointments", description: "Booked appointments: list, read, reschedule, notes and status, cancel." },
        { name: "Booking widgets", description: "Booking widgets set up by the agency, to book through." },
        { name: "Lead orders", description: "Lead orders bought by the agency: read, change daily cap and states, pause or resume, cancel." },
        { name: "Users", description: "Agency team members, invites and roles." },
        { name: "Settings", description: "Curated agency settings: name, calling timezone and hours, booking and voice defaults. Never secrets." },
        { name: "Voice AI", description: "Voice AI agents, outbound calls (placed now, after a delay or at a scheduled time), cancel, and the wallet that pays for them." },
        {
          name: "Events",
          description:
            "Every change of a contact, appointment, call, message, lead order, path, custom field or team member writes " +
            "an event in the same transaction as the change, kept 30 days. Event types: " +
            `${eventTypesSummary()} (\`ping\` is a test send). ` +
            "Each event's `data.object` is the changed record exactly as its own route returns it; the `Event` schema " +
            "lists the object of each type.",
        },
        {
          name: "Webhooks",
          description:
            "Endpoints that receive the agency's events as they happen: signed per Standard Webhooks, retried for more " +
            "than a day, with every attempt logged and any event redeliverable.",
        },
        { name: "Meta", description: "This document." },
      ],
    })));

  api.openapi(getOpenApiDocument, (c) => c.json(openApiDocument() as never, 200));
  return { api, openApiDocument };
}

export function buildApp() {
  const app = createApp();
  // Before every route: a deployment without TOKEN_PEPPER serves no request but provider callbacks.
  app.use("*", requireTokenPepper((path) => path.startsWith(PROVIDER_CALLBACKS)));
  const { api, openApiDocument } = buildPartnerApi();
  // Liveness for load balancers and the benchmark's floor: no auth, no storage.
  app.get("/health", (c) => c.json({ success: true, status: "ok" }));
  app.use(`${API_BASE}/*`, partnerCors);
  app.route(API_BASE, api);
  app.get(`${API_BASE}/docs`, referencePage(`${API_BASE}/openapi.json`, "Partner API reference"));
  app.route("/admin/v1", adminRouter);
  // Provider callbacks: signed by the provider, no API key, not in the Partner API document.
  app.route("/", twilioRouter);
  app.route("/", vapiRouter);
  // OAuth 2.1 for connected apps and MCP hosts (docs/decisions/connected-apps.md): discovery, token,
  // registration, and each resource's metadata; the consent page is the dashboard's.
  app.route("/", oauthRouter);
  app.on(["GET", "HEAD", "OPTIONS"], OAUTH_PATHS.resourceMetadata, protectedResourceMetadata("api", scopes));
  app.on(["GET", "HEAD", "OPTIONS"], `${OAUTH_PATHS.resourceMetadata}/mcp`, protectedResourceMetadata("mcp", toolScopes));
  // The MCP server for agents: each tool call is a request of its route, served by the route's own chain.
  app.route("/mcp", mcpRouter(api));
  // The agency dashboard: HTML pages with their own headers, session and CSRF checks; no CORS.
  app.route("/dashboard", dashboardRouter);
  return { app, openApiDocument };
}

export const { app } = buildApp();

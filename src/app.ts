import { Scalar } from "@scalar/hono-api-reference";
import { createApp, createRouter } from "@/lib/create-app";
import { BEARER_SCHEME, withTypedNullables } from "@/lib/openapi";
import { adminRouter } from "@/admin/admin.index";
import { authRouter } from "@/routes/auth/auth.index";
import { contactsRouter } from "@/routes/contacts/contacts.index";
import { fieldsRouter } from "@/routes/fields/fields.index";
import { getOpenApiDocument } from "@/routes/meta/meta.routes";

export const API_BASE = "/api/v2";

/** The Partner API: one router per resource, mounted under /api/v2. */
export function buildPartnerApi() {
  const api = createRouter();
  api.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description: "An access token (`pa_...`) or a legacy calendar token, sent as `Authorization: Bearer <token>`.",
  });
  api.route("/", authRouter);
  api.route("/", contactsRouter);
  api.route("/", fieldsRouter);

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
      servers: [{ url: API_BASE, description: "This server" }],
      security: [{ [BEARER_SCHEME]: [] }],
      tags: [
        { name: "Authentication", description: "Token renewal." },
        { name: "Contacts", description: "Contact CRM: create, read, update, soft-delete and restore; tags and sources." },
        { name: "Fields", description: "Custom field definitions used by contacts' `custom_fields`." },
        { name: "Meta", description: "This document." },
      ],
    })));

  api.openapi(getOpenApiDocument, (c) => c.json(openApiDocument() as never, 200));
  return { api, openApiDocument };
}

export function buildApp() {
  const app = createApp();
  const { api, openApiDocument } = buildPartnerApi();
  app.route(API_BASE, api);
  app.get(`${API_BASE}/docs`, Scalar({ url: `${API_BASE}/openapi.json`, pageTitle: "Partner API reference" }));
  app.route("/admin/v1", adminRouter);
  return { app, openApiDocument };
}

export const { app } = buildApp();

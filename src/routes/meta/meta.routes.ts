import { z } from "@hono/zod-openapi";
import { jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";

/** The OpenAPI version the document is generated in (3.0.3, docs/decisions/response-conventions.md; set where app.ts builds it). */
export const OPENAPI_VERSION = "3.0.3";

export const OpenApiDocument = z
  .looseObject({ openapi: z.literal(OPENAPI_VERSION), info: z.looseObject({}), paths: z.looseObject({}) })
  .openapi("OpenApiDocument", {
    example: { openapi: OPENAPI_VERSION, info: { title: "Partner API", version: "2.0.0" }, paths: {} },
  });

export const getOpenApiDocument = partnerRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApiDocument",
  tags: ["Meta"],
  summary: "OpenAPI document",
  description:
    "This document: the machine-readable description of the Partner API (OpenAPI 3.0.3, version 2.0.0). " +
    "No authentication. An interactive reference is served at `/api/v2/docs`.",
  scopes: "none",
  responses: { 200: jsonContent(OpenApiDocument, "The OpenAPI document.") },
});

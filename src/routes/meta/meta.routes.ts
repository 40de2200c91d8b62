import { z } from "@hono/zod-openapi";
import { jsonContent, partnerRoute } from "@/lib/openapi";

export const OpenApiDocument = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .openapi("OpenApiDocument", {
    example: { openapi: "3.0.3", info: { title: "Partner API", version: "2.0.0" }, paths: {} },
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

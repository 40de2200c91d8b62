import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createApp } from "@/middleware/create-app";
import { API_BASE } from "@/lib/api-base";
import type { PartnerApiFetch } from "./call-route";

interface RouteDefinition {
  method: string;
  /** OpenAPI's form, `/contacts/{contact_uuid}`. */
  path: string;
}

/** A path in Hono's form, `/contacts/:contact_uuid`, as its router lists it. */
const routingPath = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1");

/**
 * The Partner API routes the tools call, and only those, behind the app shell (request context,
 * body limits, the one error renderer), as their handler chains were registered: guard,
 * Idempotency-Key, validation, handler. A tool's request reaches exactly its route, and skips
 * what only the whole Worker does for a partner's request (the CORS headers, the other
 * routers): the /mcp request has done it (docs/decisions/sdk-and-mcp.md).
 */
export function toolRoutes(api: OpenAPIHono<AppBindings>, routes: readonly RouteDefinition[]): PartnerApiFetch {
  const wanted = new Set(routes.map((route) => `${route.method.toUpperCase()} ${routingPath(route.path)}`));
  const app = createApp();
  // Each handler of the chain is its own entry, in the order it was registered.
  for (const { method, path, handler } of api.routes) {
    if (wanted.has(`${method} ${path}`)) app.on(method, `${API_BASE}${path}`, handler);
  }
  return (request, env, executionCtx) => app.fetch(request, env, executionCtx);
}

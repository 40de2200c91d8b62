import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { ApiError, messages, type ErrorBody } from "@/lib/errors";
import { agencyMovingError, isAgencyMovingError } from "@/lib/shards/agency-moving";
import { requestContext } from "./request-context";
import { limitBodySize, limitJsonDepth } from "./request-limits";
import { securityHeaders } from "./security-headers";

function renderError(error: Error, c: Context<AppBindings>): Response {
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
    return c.json(error.body(), error.status);
  }
  // A write that reached an agency's old shard while the agency moves (the fence's triggers).
  if (isAgencyMovingError(error)) return renderError(agencyMovingError(), c);
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own 4xx come from body parsing: malformed JSON (400) or a body that is not JSON
    // (415). We make both a 400 validation error in our envelope (docs/decisions/response-conventions.md).
    const message = error.status === 415 ? "Content-Type must be application/json" : error.message || "Invalid request body";
    const body: ErrorBody = { success: false, error: message, code: "validation_error" };
    return c.json(body, 400);
  }
  c.var.logger?.error("unhandled error", { error: error.message, stack: error.stack });
  const body: ErrorBody = { success: false, error: messages.internal, code: "internal_error", request_id: c.var.requestId };
  return c.json(body, 500);
}

/** The app shell: request context, body limits, the JSON 404 and the one error renderer. */
export function createApp() {
  const app = createRouter();
  app.use("*", securityHeaders);
  app.use("*", requestContext);
  // Every path, ahead of every route's own middleware: the Partner API, the operator API and
  // anything mounted later are all refused a body over the limits before it is parsed.
  app.use("*", limitBodySize, limitJsonDepth);
  app.notFound((c) => c.json({ success: false, error: messages.routeNotFound, code: "not_found" } satisfies ErrorBody, 404));
  app.onError(renderError);
  return app;
}

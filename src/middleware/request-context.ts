import type { MiddlewareHandler } from "hono";
import { createDb } from "@/db/client";
import type { AppBindings } from "@/lib/context";
import { createLogger } from "@/lib/logger";

// Echo a caller's request id only when it is short and plain, so it is safe in logs.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id, database client, logger, and one structured access-log line per request. */
export const requestContext: MiddlewareHandler<AppBindings> = async (c, next) => {
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  const started = Date.now();
  c.set("requestId", requestId);
  c.set("db", createDb(c.env.DB));
  c.set("logger", createLogger({ request_id: requestId }, c.env.LOG_LEVEL));

  await next();

  c.res.headers.set("X-Request-Id", requestId);
  const caller = c.get("caller");
  c.var.logger.info("request", {
    method: c.req.method,
    route: c.req.routePath,
    path: c.req.path,
    status: c.res.status,
    ms: Date.now() - started,
    key_id: caller?.keyId,
    agency_id: caller?.agencyId,
  });
};

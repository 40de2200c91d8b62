import type { Context, MiddlewareHandler } from "hono";
import { badRequest } from "@/lib/errors";
import { createDb } from "@/db/client";
import { publishWritten } from "@/jobs/webhooks/publish";
import type { AppBindings } from "@/lib/context";
import { createLogger } from "@/lib/logger";
import { recordRowsRead } from "@/lib/rows-read";

// Echo a caller's request id only when it is short and plain, so it is safe in logs.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// D1 bookmarks look like 00000000-00000004-00000000-<32 hex>; anything else is refused
// before it reaches D1.
export const BOOKMARK_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
export const BOOKMARK_LENGTH = 59;
export const BOOKMARK_HEADER = "X-D1-Bookmark";

/**
 * Every request runs in a D1 session (read replication). Reads may be served by a nearby
 * replica ("first-unconstrained"), or by one at least as new as a bookmark the client sends
 * back; writes start at the primary. Every response returns the session's bookmark, so a
 * client that sends it on its next request reads its own writes.
 */
function openSession(c: Context<AppBindings>) {
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark !== undefined && !BOOKMARK_PATTERN.test(bookmark)) {
    throw badRequest(`${BOOKMARK_HEADER} must be a bookmark returned by this API`);
  }
  const isRead = c.req.method === "GET" || c.req.method === "HEAD";
  return c.env.DB.withSession(bookmark ?? (isRead ? "first-unconstrained" : "first-primary"));
}

/** Request id, database client, logger, and one structured access-log line per request. */
export const requestContext: MiddlewareHandler<AppBindings> = async (c, next) => {
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  const started = Date.now();
  c.set("requestId", requestId);
  const logger = createLogger({ request_id: requestId }, c.env.LOG_LEVEL);
  c.set("logger", logger);
  // Set before anything can throw, so error responses carry it too.
  c.header("X-Request-Id", requestId);
  const session = openSession(c);
  const recorder =
    c.env.BENCH_METRICS === "on" && c.req.header("X-Bench-Rows-Read") === "1" ? recordRowsRead(session, c.env.DB) : null;
  c.set("db", createDb(recorder?.session ?? session));

  await next();

  // Deliveries of the events this request committed start now, after the response. (A route
  // may have swapped in its own client: the dashboard reads the primary.)
  const publishing = c.res.status < 400 ? publishWritten(c.get("db"), c.env.WEBHOOK_QUEUE, logger) : undefined;
  if (publishing) c.executionCtx.waitUntil(publishing);

  if (recorder) {
    c.res.headers.set("X-Bench-D1-Round-Trips", String(recorder.roundTrips()));
    c.res.headers.set("X-Bench-D1-Statements", String(recorder.statements()));
    c.res.headers.set("X-Bench-Rows-Read", String(await recorder.total()));
  }

  const bookmark = session.getBookmark();
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  if (!logger.enabled("info")) return;
  const caller = c.get("caller");
  logger.info("request", {
    method: c.req.method,
    route: c.req.routePath,
    path: c.req.path,
    status: c.res.status,
    ms: Date.now() - started,
    key_id: caller?.keyId,
    agency_id: caller?.agencyId,
  });
};

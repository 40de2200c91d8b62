import type { MiddlewareHandler } from "hono";
import { badRequest } from "@/lib/errors";
import { publishWritten } from "@/domain/webhooks/publish";
import { keepMcpToolMark } from "@/lib/auth/mcp-tool-requests";
import type { AppBindings } from "@/lib/context";
import { createLogger } from "@/lib/logger";
import { BOOKMARK_HEADER, BOOKMARK_PATTERN } from "@/lib/request-headers";

// Echo a caller's request id only when it is short and plain, so it is safe in logs.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id, logger, the client's D1 bookmark, and one structured access-log line per request.
 * The database client comes later, once the request's shard is known (shard-session.ts).
 */
export const requestContext: MiddlewareHandler<AppBindings> = async (c, next) => {
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  const started = Date.now();
  c.set("requestId", requestId);
  keepMcpToolMark(c, c.req.raw);
  const logger = createLogger({ request_id: requestId }, c.env.LOG_LEVEL);
  c.set("logger", logger);
  // Set before anything can throw, so error responses carry it too.
  c.header("X-Request-Id", requestId);
  const sent = c.req.header(BOOKMARK_HEADER);
  if (sent !== undefined) {
    const match = BOOKMARK_PATTERN.exec(sent);
    if (!match) throw badRequest(`${BOOKMARK_HEADER} must be a bookmark returned by this API`);
    c.set("bookmark", { shard: match[1] ?? null, bookmark: match[2]! });
  }

  await next();
  // A Response a handler built itself (the OAuth library's, the MCP SDK's) did not get the
  // header set above: every answer carries it all the same.
  c.res.headers.set("X-Request-Id", requestId);

  const opened = c.get("shardSession");
  if (opened) {
    // Deliveries of the events this request committed start now, after the response.
    const publishing = c.res.status < 400 ? publishWritten(c.get("db"), c.env.WEBHOOK_QUEUE, logger) : undefined;
    if (publishing) c.executionCtx.waitUntil(publishing);
    const { recorder, session, shard } = opened;
    if (recorder) {
      c.res.headers.set("X-Bench-D1-Round-Trips", String(recorder.roundTrips()));
      c.res.headers.set("X-Bench-D1-Statements", String(recorder.statements()));
      c.res.headers.set("X-Bench-Rows-Written", String(recorder.written()));
      c.res.headers.set("X-Bench-Rows-Read", String(await recorder.total()));
    }
    const bookmark = session.getBookmark();
    if (bookmark) c.res.headers.set(BOOKMARK_HEADER, `${shard}:${bookmark}`);
  }
  if (!logger.enabled("info")) return;
  const caller = c.get("caller");
  logger.info("request", {
    method: c.req.method,
    route: c.req.routePath,
    path: c.req.path,
    status: c.res.status,
    ms: Date.now() - started,
    ...(caller?.credential.type === "app_grant" ? { grant_id: caller.credential.grantId } : { key_id: caller?.credential.keyId }),
    agency_id: caller?.agencyId,
  });
};

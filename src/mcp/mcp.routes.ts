import { createMcpHandler } from "@modelcontextprotocol/server";
import type { MiddlewareHandler } from "hono";
import { scopes } from "@/lib/auth/scopes";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { withBody } from "@/lib/fresh-request";
import { MCP_RATE_LIMIT } from "@/lib/rate-limits";
import { guard } from "@/middleware/guard";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { batchRefusal } from "./batch";
import type { CallerRequest, PartnerApiFetch } from "./call-route";
import { mcpServer } from "./mcp-server";
import { browserOrigin, originRefusal } from "./origin";
import { toolScopes } from "./tools";

/**
 * Headers set with `c.header()` ahead of the handler (X-Request-Id, the guard's RateLimit-*)
 * reach only the responses Hono builds itself (`c.json`); a Response returned as is (the MCP
 * SDK's answers, the refusals below) would go without them. Once `c.res` exists, those headers
 * go to it, and Hono copies them into whichever Response a later handler returns (what Hono's
 * own cors middleware relies on): every answer of /mcp carries them, whatever branch made it.
 */
const keepSetHeaders: MiddlewareHandler<AppBindings> = async (c, next) => {
  void c.res;
  await next();
};

/**
 * Refuses a browser page of another origin than PUBLIC_BASE_URL's. The refusal comes before
 * the guard, which counts every request, so it is counted here the way the guard counts a
 * request showing no key: against the client IP. A page cannot send refusals uncounted, and
 * the refusal's RateLimit headers are real (429 once the IP has used up the endpoint's limit).
 */
const checkOrigin: MiddlewareHandler<AppBindings> = async (c, next) => {
  const refusal = originRefusal(c.req.header("Origin"), browserOrigin(c.env));
  if (!refusal) return next();
  await enforceIpRateLimit(c, MCP_RATE_LIMIT);
  return refusal;
};

/** The body as JSON, or undefined when it is none (the MCP SDK then answers with its own error). */
function parsedJson(bytes: ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * `/mcp`: the remote MCP server (streamable HTTP, stateless: each request builds its server
 * and ends with it, so no Durable Object or session holds anything between requests).
 *
 * Every request presents an API key through the same gate as the Partner API and counts
 * against the endpoint's own limit; each tool call is then a request of its route, with that
 * route's scope and rate limit.
 */
export function mcpRouter(send: PartnerApiFetch) {
  // One handler for the isolate, as the MCP SDK intends: it holds no session, and what varies
  // per request (the key's scopes, the caller to act as) reaches the factory as its authInfo.
  const handler = createMcpHandler(({ authInfo }) => mcpServer(authInfo?.scopes ?? [], send, authInfo?.extra?.caller as CallerRequest));
  return createRouter().all("/", keepSetHeaders, checkOrigin,
    // Every MCP request is a POST, but only a tool's own request writes: that one meets the
    // move fence, so listing tools and reading keep working while the agency moves.
    guard({ scopes, rateLimit: MCP_RATE_LIMIT, write: false, resource: "mcp", challengeScopes: toolScopes }),
    async (c) => {
      const { credential, scopes: granted } = c.var.caller;
      const authorization = c.req.header("Authorization") ?? "";
      const caller: CallerRequest = {
        url: c.req.url,
        authorization,
        clientIp: c.req.header("CF-Connecting-IP"),
        requestId: c.var.requestId,
        env: c.env,
        executionCtx: c.executionCtx,
      };
      // The SDK gets a copy of the request (lib/fresh-request.ts), and the body parsed once here,
      // where batches are checked, instead of again there.
      const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
      const bytes = hasBody ? await c.req.arrayBuffer() : undefined;
      const parsedBody = bytes === undefined ? undefined : parsedJson(bytes);
      const refusal = batchRefusal(parsedBody, c.req.header("MCP-Protocol-Version"));
      if (refusal) return refusal;
      const request = withBody(c.req.raw, bytes);
      const clientId = credential.type === "api_key" ? credential.keyId : credential.clientId;
      const authInfo = { token: authorization.replace(/^Bearer\s+/i, ""), clientId, scopes: [...granted], extra: { caller } };
      return handler.fetch(request, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
    },
  );
}

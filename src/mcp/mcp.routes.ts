import { createMcpHandler } from "@modelcontextprotocol/server";
import { scopes } from "@/lib/auth/scopes";
import { createRouter } from "@/lib/create-router";
import { MCP_RATE_LIMIT } from "@/lib/rate-limits";
import { guard } from "@/middleware/guard";
import { batchRefusal } from "./batch";
import type { CallerRequest, PartnerApiFetch } from "./call-route";
import { mcpServer } from "./mcp-server";
import { browserOrigin, originRefusal } from "./origin";

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
  return createRouter().all("/", async (c, next) => originRefusal(c.req.header("Origin"), browserOrigin(c.env)) ?? next(),
    // Every MCP request is a POST, but only a tool's own request writes: that one meets the
    // move fence, so listing tools and reading keep working while the agency moves.
    guard({ scopes, rateLimit: MCP_RATE_LIMIT, write: false }),
    async (c) => {
      const { keyId, scopes: granted } = c.var.caller;
      const authorization = c.req.header("Authorization") ?? "";
      const caller: CallerRequest = {
        url: c.req.url,
        authorization,
        clientIp: c.req.header("CF-Connecting-IP"),
        requestId: c.var.requestId,
        env: c.env,
        executionCtx: c.executionCtx,
      };
      // The body limits have read the body already (Hono keeps the bytes): hand the SDK a fresh
      // request, and the body parsed once here, where batches are checked, instead of again there.
      const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
      const bytes = hasBody ? await c.req.arrayBuffer() : undefined;
      const parsedBody = bytes === undefined ? undefined : parsedJson(bytes);
      const refusal = batchRefusal(parsedBody, c.req.header("MCP-Protocol-Version"));
      if (refusal) return refusal;
      const request = new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers, body: bytes });
      const authInfo = { token: authorization.replace(/^Bearer\s+/i, ""), clientId: keyId, scopes: [...granted], extra: { caller } };
      return handler.fetch(request, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
    },
  );
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { scopes } from "@/lib/auth/scopes";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import type { CheckAdmission } from "@/lib/auth/gate-protocol";
import { MCP_RATE_LIMIT } from "@/lib/rate-limits";
import { guard } from "@/middleware/guard";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { batchRefusal } from "./batch";
import type { CallerRequest, PartnerApiFetch } from "./call-route";
import { serveMcp } from "./mcp-endpoint";
import { browserOrigin, originRefusal } from "./origin";
import { routeChecksOf, toolSetOf } from "./tool-catalog";
import { toolRoutes } from "./tool-routes";
import { tools, toolScopes } from "./tools";

/**
 * Headers set with `c.header()` ahead of the handler (X-Request-Id, the guard's RateLimit-*)
 * reach only the responses Hono builds itself (`c.json`); a Response returned as is (the MCP
 * endpoint's answers, the refusals below) would go without them. Once `c.res` exists, those headers
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

/** The body as JSON, or undefined when it is none (the endpoint then answers with its parse error). */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the gate said of a tool call's route, by request (the guard's `also`). */
const routeAdmissions = new WeakMap<Context<AppBindings>, CheckAdmission | undefined>();

/** A request's body, read and parsed once: by the guard's route check, then by the handler. */
const bodies = new WeakMap<Context<AppBindings>, Promise<unknown>>();
function bodyOf(c: Context<AppBindings>): Promise<unknown> {
  let body = bodies.get(c);
  if (!body) {
    const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
    body = hasBody ? c.req.text().then(parsedJson) : Promise.resolve(undefined);
    bodies.set(c, body);
  }
  return body;
}

/**
 * `/mcp`: the remote MCP server (streamable HTTP, stateless: no Durable Object or session
 * holds anything between requests), served by our own endpoint (mcp-endpoint.ts).
 *
 * Every request presents an API key through the same gate as the Partner API and counts
 * against the endpoint's own limit; a tool call is also a request of its route, with that
 * route's scope and rate limit, decided in the same gate call (docs/decisions/sdk-and-mcp.md),
 * and served by the route's own handler chain (`api`'s, tool-routes.ts).
 */
export function mcpRouter(api: OpenAPIHono<AppBindings>) {
  let routes: PartnerApiFetch | undefined;
  const send: PartnerApiFetch = (request, env, executionCtx) => (routes ??= toolRoutes(api, tools.map((tool) => tool.route)))(request, env, executionCtx);
  return createRouter().all("/", keepSetHeaders, checkOrigin,
    // Every MCP request is a POST, but only a tool's own request writes: that one meets the
    // move fence, so listing tools and reading keep working while the agency moves.
    guard({
      scopes,
      rateLimit: MCP_RATE_LIMIT,
      write: false,
      resource: "mcp",
      challengeScopes: toolScopes,
      also: { checks: async (c) => routeChecksOf(await bodyOf(c)), answered: (c, answers) => routeAdmissions.set(c, answers?.[0]) },
    }),
    async (c) => {
      const caller: CallerRequest = {
        url: c.req.url,
        authorization: c.req.header("Authorization") ?? "",
        clientIp: c.req.header("CF-Connecting-IP"),
        requestId: c.var.requestId,
        env: c.env,
        executionCtx: c.executionCtx,
        routeAdmission: routeAdmissions.get(c),
      };
      const parsed = await bodyOf(c);
      const refusal = batchRefusal(parsed, c.req.header("MCP-Protocol-Version"));
      if (refusal) return refusal;
      const body = parsed === undefined ? { unusable: true as const } : { json: parsed };
      return serveMcp(c.req.method, c.req.raw.headers, body, { tools: toolSetOf(c.var.caller.scopes), caller, send });
    },
  );
}

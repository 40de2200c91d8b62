import { OAuthResourceServer } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import type { Env } from "@/env";
import { afterCodeExchange, afterTokenRevocation } from "@/domain/auth/grant-operations";
import { authorizationServer, CODE_REUSED, issuerOf, OAUTH_PATHS, resourcesOf, type ResourceName } from "@/domain/auth/oauth-server";
import { oauthTokenParts } from "@/lib/auth/tokens";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { withBody } from "@/lib/fresh-request";
import { ApiError } from "@/lib/errors";
import { OAUTH_REGISTER_RATE_LIMIT, OAUTH_TOKEN_RATE_LIMIT, type RateLimitRule } from "@/lib/rate-limits";
import { enforceIpRateLimit } from "@/middleware/rate-limit";

type Ctx = Context<AppBindings>;

/**
 * The OAuth 2.1 endpoints apps and MCP hosts call (domain/auth/oauth-server.ts): discovery, token
 * (with refresh and RFC 7009 revocation) and dynamic client registration are the library's;
 * we add the per-IP limits, the agency a token answer is for, and the bookkeeping of an app's
 * own revocation. The consent page is the dashboard's. None of this is in the Partner API
 * document: RFC 8414 metadata describes it.
 */

/**
 * A refusal of ours in OAuth's error format (RFC 6749 §5.2), which OAuth clients parse: a 429 of
 * the per-IP limit keeps its Retry-After and RateLimit headers.
 */
async function limited(c: Ctx, rule: RateLimitRule): Promise<Response | undefined> {
  try {
    await enforceIpRateLimit(c, rule);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // Browser-based clients (an MCP host's web UI) read it too, as they read the library's answers.
    return c.json({ error: "temporarily_unavailable", error_description: error.message }, error.status, { ...error.headers, "Access-Control-Allow-Origin": "*" });
  }
}

/** Hono's execution context is the Worker's, typed by Hono's own (older) declaration. */
const workerCtx = (c: Ctx) => c.executionCtx as unknown as ExecutionContext;

/** The request as the library must see it: with a body, a copy made from the bytes already read. */
async function forLibrary(c: Ctx): Promise<Request> {
  if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS") return c.req.raw;
  return withBody(c.req.raw, await c.req.arrayBuffer());
}

const serve = async (c: Ctx) => authorizationServer(issuerOf(c.env, c.req.url)).fetch(await forLibrary(c), c.env, workerCtx(c));

/**
 * What a token request names that can end a grant, read from a copy of its form: the token of a
 * revocation (RFC 7009: `token` and no `grant_type`), or the code of an exchange (a replayed code
 * ends its grant). Null for anything else.
 */
async function grantAtStake(c: Ctx): Promise<{ revocation: boolean; credential: string } | null> {
  if (!c.req.header("Content-Type")?.toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  const form = new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()));
  const revoked = form.has("grant_type") ? null : form.get("token");
  if (revoked !== null) return { revocation: true, credential: revoked };
  const code = form.get("grant_type") === "authorization_code" ? form.get("code") : null;
  return code === null ? null : { revocation: false, credential: code };
}

/** Whether a refused exchange was refused for its code's second use (the library's and our callback's words alike). */
async function codeReused(response: Response): Promise<boolean> {
  const body = (await response.clone().json().catch(() => null)) as { error_description?: unknown } | null;
  return body?.error_description === CODE_REUSED;
}

/**
 * What follows an answer of the token endpoint for the grant at stake, before the answer
 * leaves, so the very next request sees it. Its own failure (a move pausing the agency's
 * writes) does not change the answer: the library has acted, and the row catches up when the
 * grant is next revoked or used.
 */
async function followThrough(c: Ctx, atStake: NonNullable<Awaited<ReturnType<typeof grantAtStake>>>, response: Response) {
  try {
    if (atStake.revocation) {
      if (response.ok) await afterTokenRevocation(c.env, issuerOf(c.env, c.req.url), atStake.credential);
    } else if (response.ok) await afterCodeExchange(c.env, atStake.credential, "tokens");
    else if (response.status === 400 && (await codeReused(response))) await afterCodeExchange(c.env, atStake.credential, "code_reused");
  } catch (error) {
    c.var.logger.warn("following a token answer through failed", { error: (error as Error).message });
  }
}

/**
 * POST /oauth/token. A token answer also names `agency_uuid`, the agency the app now acts for
 * (an app connected to many agencies tells its tokens apart by it); the token itself names it
 * too, so this costs no read. A revocation, or an exchange's outcome for its grant, is followed
 * through before the answer.
 */
async function token(c: Ctx) {
  const refused = await limited(c, OAUTH_TOKEN_RATE_LIMIT);
  if (refused) return refused;
  const atStake = await grantAtStake(c);
  const response = await serve(c);
  if (atStake) await followThrough(c, atStake, response);
  if (!response.ok || atStake?.revocation) return response;
  const answer = (await response.json()) as Record<string, unknown>;
  const parts = typeof answer.access_token === "string" ? oauthTokenParts(answer.access_token) : null;
  return new Response(JSON.stringify(parts ? { ...answer, agency_uuid: parts.agencyId } : answer), { status: response.status, headers: response.headers });
}

async function register(c: Ctx) {
  return (await limited(c, OAUTH_REGISTER_RATE_LIMIT)) ?? serve(c);
}

const RESOURCE_NAMES: Record<ResourceName, string> = { api: "Partner API", mcp: "Partner API MCP server" };

// One host per resource and issuer for the isolate's life; only its metadata document is served.
const resourceHosts = new Map<string, OAuthResourceServer<Env>>();

/**
 * The RFC 9728 document of a resource: its identifier, its authorization server, and the scopes
 * to ask for. The library's resource host serves it (with HEAD, CORS and 405 as the RFC wants);
 * requests reach it only at that document's path, so its handler never runs.
 */
export function protectedResourceMetadata(resource: ResourceName, requiredScopes: readonly string[]) {
  return (c: Ctx) => {
    const issuer = issuerOf(c.env, c.req.url);
    const cacheKey = `${resource} ${issuer}`;
    let host = resourceHosts.get(cacheKey);
    if (!host) {
      host = new OAuthResourceServer<Env>({
        resourceMetadata: {
          resource: resourcesOf(issuer)[resource],
          authorization_servers: [issuer],
          bearer_methods_supported: ["header"],
          resource_name: RESOURCE_NAMES[resource],
        },
        requiredScopes: [...requiredScopes],
        validateToken: () => async () => null,
        handler: { fetch: () => new Response(null, { status: 404 }) },
      });
      resourceHosts.set(cacheKey, host);
    }
    return host.fetch(c.req.raw, c.env, workerCtx(c));
  };
}

export const oauthRouter = createRouter()
  .on(["GET", "HEAD", "OPTIONS"], OAUTH_PATHS.serverMetadata, serve)
  .on(["POST", "OPTIONS"], OAUTH_PATHS.token, (c) => (c.req.method === "OPTIONS" ? serve(c) : token(c)))
  .on(["POST", "OPTIONS"], OAUTH_PATHS.register, (c) => (c.req.method === "OPTIONS" ? serve(c) : register(c)));

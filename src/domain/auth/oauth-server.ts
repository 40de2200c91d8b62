import { OAuthAuthorizationServer, OAuthError, type OAuthHelpers, type TokenExchangeCallbackOptions } from "@cloudflare/workers-oauth-provider";
import type { Env } from "@/env";
import { ApiError } from "@/lib/errors";
import { recordExchangedGrant, type GrantProps } from "./app-grants.repository";
import { grantGate } from "@/lib/auth/gate";
import { scopes } from "@/lib/auth/scopes";

/**
 * The OAuth 2.1 authorization server through which apps and AI agents connect to an agency
 * (docs/decisions/connected-apps.md). @cloudflare/workers-oauth-provider does the protocol:
 * PKCE S256, codes, refresh-token rotation, dynamic client registration, Client ID Metadata
 * Documents, the RFC 8414 metadata, and every token and secret stored only as a hash in the
 * `OAUTH_KV` namespace. We own what is ours: the consent page (the dashboard's), which scopes
 * exist, and the agency's record of each grant (app_grants).
 */

export const OAUTH_PATHS = {
  /** The dashboard's consent page. */
  authorize: "/dashboard/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  /** RFC 8414. */
  serverMetadata: "/.well-known/oauth-authorization-server",
  /** RFC 9728: the Partner API's document; the MCP server's adds its path (`/mcp`). */
  resourceMetadata: "/.well-known/oauth-protected-resource",
} as const;

/** An access token lives an hour; its refresh token renews it. */
export const OAUTH_ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A grant lives 30 days from its approval, and another 30 from each refresh: it ends when its app stops using it, or is revoked. */
export const OAUTH_REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;

/**
 * The issuer of tokens: the origin of PUBLIC_BASE_URL, the Worker's public address, or (for local
 * development, where it is unset) the origin the request came to. Tokens are bound to it, so a
 * deployment reached under two hostnames sets PUBLIC_BASE_URL to the one clients use.
 */
export function issuerOf(env: Pick<Env, "PUBLIC_BASE_URL">, requestUrl: string): string {
  if (env.PUBLIC_BASE_URL) {
    try {
      return new URL(env.PUBLIC_BASE_URL).origin;
    } catch {
      // A malformed setting: fall back to the request's origin rather than fail every request.
    }
  }
  return new URL(requestUrl).origin;
}

/**
 * The two protected resources (RFC 8707 audiences) the server issues tokens for: the Partner
 * API, named by the origin itself, and the MCP server at `/mcp`, which MCP hosts name when they
 * connect. A token of the API also serves `/mcp` (a path beneath its audience); an MCP host's
 * token serves only `/mcp` and the routes its tools call.
 */
export const resourcesOf = (issuer: string) => ({ api: issuer, mcp: `${issuer}/mcp` }) as const;

export type OAuthResources = ReturnType<typeof resourcesOf>;

/** The library's own words for a code used twice; ours say the same, so the token endpoint tells both apart alike. */
export const CODE_REUSED = "Authorization code already used";

async function tokenExchanged(options: TokenExchangeCallbackOptions<Env>): Promise<undefined> {
  if (options.grantType !== "authorization_code") return undefined;
  const gate = grantGate(options.env, options.grantId);
  // invalid_grant also makes the library revoke the grant's records: the gate has ended it already.
  if (!(await gate.claimCode())) throw new OAuthError("invalid_grant", { description: CODE_REUSED });
  // The library spends the code only after this resolves: a failure here leaves the code
  // unspent, so the app can simply retry (a move's 503 says when).
  try {
    await recordExchangedGrant(options.env, {
      grantId: options.grantId,
      clientId: options.clientId,
      scopes: options.scope,
      resource: options.resource,
      props: options.props as GrantProps,
    });
  } catch (error) {
    await gate.releaseCode();
    if (error instanceof ApiError && error.code === "agency_moving") {
      throw new OAuthError("temporarily_unavailable", { description: error.message, statusCode: 503, headers: error.headers });
    }
    // The agency is gone: the grant can never work.
    if (error instanceof ApiError && error.code === "not_found") throw new OAuthError("invalid_grant", { description: error.message });
    throw error;
  }
  return undefined;
}

// One server per issuer for the isolate's life: it holds no per-request state.
const servers = new Map<string, OAuthAuthorizationServer<Env>>();

export function authorizationServer(issuer: string): OAuthAuthorizationServer<Env> {
  let server = servers.get(issuer);
  if (!server) {
    const resources = resourcesOf(issuer);
    server = new OAuthAuthorizationServer<Env>({
      issuer,
      resources: [resources.api, resources.mcp],
      // A partner app that names no resource is connecting to the API.
      defaultResource: resources.api,
      authorizeEndpoint: OAUTH_PATHS.authorize,
      tokenEndpoint: OAUTH_PATHS.token,
      clientRegistrationEndpoint: OAUTH_PATHS.register,
      scopesSupported: [...scopes],
      accessTokenTTL: OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTTL: OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      refreshTokenIdleTTL: OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      clientIdMetadataDocumentEnabled: true,
      tokenExchangeCallback: tokenExchanged,
      // The token endpoint's refusals are the client's business, answered in OAuth's own format;
      // the library would otherwise log each one as a warning.
      onError: () => undefined,
    });
    servers.set(issuer, server);
  }
  return server;
}

/** The library's helpers (consent, grants, tokens) for one issuer. */
export const oauthApi = (env: Env, issuer: string): OAuthHelpers => authorizationServer(issuer).getOAuthApi(env);

/** Which of the protected resources a route belongs to. */
export type ResourceName = keyof OAuthResources;

/** The RFC 9728 metadata document of a resource: where a client learns which server issues its tokens. */
export const resourceMetadataUrl = (issuer: string, resource: ResourceName) =>
  `${issuer}${OAUTH_PATHS.resourceMetadata}${resource === "mcp" ? "/mcp" : ""}`;

/**
 * The `WWW-Authenticate` challenge of a refused request (RFC 6750 §3, RFC 9728 §5.1): it names
 * the resource's metadata, so a client holding no token (an MCP host given only the URL) finds
 * the authorization server from the 401 alone; `scope` says what to ask for.
 */
export function bearerChallenge(issuer: string, resource: ResourceName, options: { error?: "invalid_token" | "insufficient_scope"; scope?: readonly string[] } = {}) {
  const params = [`resource_metadata="${resourceMetadataUrl(issuer, resource)}"`];
  if (options.error) params.push(`error="${options.error}"`);
  if (options.scope && options.scope.length > 0) params.push(`scope="${options.scope.join(" ")}"`);
  return `Bearer ${params.join(", ")}`;
}

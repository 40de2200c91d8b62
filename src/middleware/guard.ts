import type { Context, MiddlewareHandler } from "hono";
import type { Admission, CheckAdmission, CountedAdmission, GateCheck } from "@/lib/auth/gate-protocol";
import { grantGate, keyGate } from "@/lib/auth/gate";
import { mcpToolAdmission } from "@/lib/auth/mcp-tool-requests";
import { bearerChallenge, issuerOf, resourcesOf, type ResourceName } from "@/domain/auth/oauth-server";
import type { Scope } from "@/lib/auth/scopes";
import { bearerToken, credentialOf, hashToken, type Credential } from "@/lib/auth/tokens";
import type { AppBindings } from "@/lib/context";
import { ApiError, messages } from "@/lib/errors";
import type { RateLimitRule } from "@/lib/rate-limits";
import { agencyMovingError } from "@/lib/shards/agency-moving";
import { applyRateLimitDecision, enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";

type Ctx = Context<AppBindings>;

interface GuardOptions {
  scopes: readonly Scope[] | "none";
  rateLimit: RateLimitRule;
  /** Whether the request writes (refused while its agency moves); by default, every method but GET and HEAD. */
  write?: boolean;
  /** The OAuth resource the route belongs to (its tokens' audience): the Partner API unless said otherwise. */
  resource?: ResourceName;
  /** The scopes a 401's challenge tells an OAuth client to ask for. */
  challengeScopes?: readonly string[];
  /** Further checks the same gate call decides once the request is admitted (a /mcp tool call's route), and who hears the answers. */
  also?: { checks: (c: Ctx) => Promise<readonly GateCheck[]>; answered: (c: Ctx, answers: CheckAdmission[] | undefined) => void };
}

/**
 * The token audiences a route accepts. An API token (the origin's) serves every route, `/mcp`
 * included (a path beneath it); an MCP host's token serves `/mcp`, and the routes only when the
 * MCP server sends a tool's request (docs/decisions/connected-apps.md).
 */
function acceptedAudiences(c: Ctx, issuer: string, resource: ResourceName): string[] {
  const resources = resourcesOf(issuer);
  if (resource === "mcp") return [resources.mcp, resources.api];
  return mcpToolAdmission(c) ? [resources.api, resources.mcp] : [resources.api];
}

/** One call to the credential's AccessGate: authentication, rate limit and scope together. */
async function admit(c: Ctx, token: string, credential: Credential, options: GuardOptions & { scopes: readonly Scope[] }): Promise<Admission> {
  const { rateLimit } = options;
  const common = {
    bucket: rateLimit.bucket,
    limit: rateLimit.limit,
    windowSeconds: rateLimit.windowSeconds,
    scopes: options.scopes,
    write: options.write ?? (c.req.method !== "GET" && c.req.method !== "HEAD"),
    ...(options.also ? { also: await options.also.checks(c) } : {}),
  };
  if (credential.type === "api_key") {
    return keyGate(c.env, credential.keyId).admit({ ...common, keyId: credential.keyId, tokenHash: await hashToken(token, c.env) });
  }
  const issuer = issuerOf(c.env, c.req.url);
  const audiences = acceptedAudiences(c, issuer, options.resource ?? "api");
  return grantGate(c.env, credential.grantId).admitGrant({ ...common, grantId: credential.grantId, token, issuer, audiences });
}

/**
 * The front door of every Partner API route (and of /mcp): authenticate, count the request
 * against its rate limit, then check the scope (so a key without the scope still spends its limit). For an API key or a connected app's
 * OAuth token, all three are one call to its AccessGate, so no route knows which it got; a
 * request without either (no token, one not of our shapes, or one its gate rejects) is counted
 * against the client IP. `scopes: "none"` marks the unauthenticated routes, limited per IP.
 * Refusals carry the OAuth challenge (RFC 6750), naming where to find the authorization server.
 */
export function guard(options: GuardOptions): MiddlewareHandler<AppBindings> {
  const { scopes, rateLimit } = options;
  const resource = options.resource ?? "api";
  return async (c, next) => {
    if (scopes === "none") {
      await enforceIpRateLimit(c, rateLimit);
      return next();
    }
    // Only a refusal (its challenge) and an OAuth token need the issuer: a key's request parses no URL for it.
    const issuer = () => issuerOf(c.env, c.req.url);
    // RFC 6750 §3.1: a request that sent no token learns what to ask for; one that sent a bad token, that it is.
    const refuse = (code: "invalid_token" | "token_expired", token: string | null, credential: Credential | null) => {
      const challenge = bearerChallenge(issuer(), resource, token ? { error: "invalid_token" } : { scope: options.challengeScopes });
      const expired = credential?.type === "app_grant" ? messages.oauthTokenExpired : messages.tokenExpired;
      return new ApiError(code, code === "token_expired" ? expired : messages.invalidToken, { headers: { "WWW-Authenticate": challenge } });
    };
    /** The credential's gate call: refuses a request without a known token, counted against the client IP. */
    const authenticate = async (): Promise<CountedAdmission> => {
      const token = bearerToken(c.req.header("Authorization"));
      const credential = token ? credentialOf(token, c.env) : null;
      if (!token || !credential) {
        await enforceIpRateLimit(c, rateLimit);
        throw refuse("invalid_token", token, null);
      }

      const admission = await admit(c, token, credential, { ...options, scopes });
      if (!("decision" in admission)) {
        await enforceIpRateLimit(c, rateLimit);
        throw refuse(admission.outcome === "expired" ? "token_expired" : "invalid_token", token, credential);
      }
      if (admission.outcome === "admitted") options.also?.answered(c, admission.also);
      return admission;
    };
    // A /mcp tool call's route: the /mcp request's one gate call decided it already.
    const decided = mcpToolAdmission(c);
    const admission = decided?.admission && decided.bucket === rateLimit.bucket ? decided.admission : await authenticate();
    // Counted either way; throws 429 when the limit is used up.
    applyRateLimitDecision(c, rateLimit, admission.decision);
    if (admission.outcome === "moving") throw agencyMovingError();
    if (!("caller" in admission)) {
      throw new ApiError("insufficient_scope", messages.missingScope(scopes[0] ?? "*"), {
        headers: { "WWW-Authenticate": bearerChallenge(issuer(), resource, { error: "insufficient_scope", scope: scopes }) },
      });
    }
    c.set("caller", admission.caller);
    useShard(c, admission.caller.shard);
    return next();
  };
}

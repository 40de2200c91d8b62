import { AuthorizationError, authorizationErrorRedirect, CimdFetchError, type AuthRequest, type ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { MAX_CLIENT_ID_LENGTH, MAX_CLIENT_NAME_LENGTH, type GrantProps } from "@/domain/auth/app-grants.repository";
import { issuerOf, oauthApi, resourcesOf } from "@/domain/auth/oauth-server";
import { scopesToGrant } from "@/lib/auth/oauth-scopes";
import type { Scope } from "@/lib/auth/scopes";
import { OAUTH_AUTHORIZE_RATE_LIMIT } from "@/lib/rate-limits";
import { toolScopes } from "@/mcp/tools";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";
import { rememberReturn } from "../auth/return-to";
import { findSession, mayUseDashboard, SESSION_COOKIE, type MemberSession } from "@/domain/auth/dashboard-sessions";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import { isCrossSite } from "../http/fetch-site";
import { textField } from "../http/form";
import { render } from "../http/render";
import { ConnectSignInPage, ConsentPage, type ConsentFacts } from "../pages/consent-page";
import { HopPage, MessagePage } from "../pages/message-page";

type Ctx = Context<DashboardBindings>;

/**
 * The OAuth authorization endpoint (domain/auth/oauth-server.ts): the agency's consent to an app.
 * The library checks the request (client, exact redirect URI, PKCE S256, resource) and keeps it
 * server-side between the page and its form, bound to this browser by a cookie of its own; the
 * page is ours: who may approve (a signed-in owner or admin), what they are shown, and the
 * scopes on offer.
 */

export const consentMessages = {
  agentRole: "Only the agency's owner and admins can connect apps. Ask your agency's owner to approve it.",
  sessionEnded: "Your dashboard session has ended, so nothing was approved. Start connecting again from the app.",
  decision: "Choose Approve or Deny.",
  pkce: "code_challenge is required, with code_challenge_method S256 (PKCE): every app proves it is the one that asked",
  clientIdTooLong: "client_id is too long: a Client ID Metadata Document URL may have at most 2048 characters",
  unverifiable: "This app could not be verified: its metadata document could not be fetched or is not valid. Try again later, or ask the app's makers.",
} as const;

const helpersOf = (c: Ctx) => {
  const issuer = issuerOf(c.env, c.req.url);
  return { issuer, oauth: oauthApi(c.env, issuer) };
};

/**
 * A request the library refused. It is sent back to the app only once the app and its exact
 * redirect URI are the library's checked ones and a signed-in owner or admin is here: anyone can
 * register an app with any redirect URI, so a refusal sent back before that would make this page
 * an open redirector (RFC 9700 §4.11.2). Otherwise it is shown here.
 */
function refusedRequest(c: Ctx, error: unknown, member: MemberSession | undefined) {
  if (error instanceof AuthorizationError && error.redirectTo && member && mayUseDashboard(member)) return c.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError) return render(c, <MessagePage title="This connection request is not valid" message={error.description} />, 400);
  if (error instanceof CimdFetchError) return render(c, <MessagePage title="This app could not be verified" message={consentMessages.unverifiable} />, 400);
  throw error;
}

/** The member signed in to the dashboard in this browser, whatever their role now (an agent is told why they may not approve). */
async function memberSession(c: Ctx): Promise<MemberSession | undefined> {
  const secret = getCookie(c, SESSION_COOKIE);
  if (!secret) return undefined;
  return (await findSession(c.env, secret, (shard) => useShard(c, shard, "primary"), true))?.session;
}

const agentRefused = (c: Ctx) => render(c, <MessagePage title="Only owners and admins can connect apps" message={consentMessages.agentRole} />, 403);

/** What the page shows of a request: the library's description, the app's name kept to a sane length. */
function factsOf(described: ConsentDescription, resource: ConsentFacts["resource"], scopes: readonly string[]): ConsentFacts {
  return {
    clientName: described.clientName.slice(0, MAX_CLIENT_NAME_LENGTH),
    ...(described.clientDomain ? { clientDomain: described.clientDomain } : {}),
    redirectHost: described.redirectHost,
    redirectIsLoopback: described.redirectIsLoopback,
    scopes,
    resource,
  };
}

const resourceOf = (issuer: string, request: AuthRequest): ConsentFacts["resource"] => (request.resource === resourcesOf(issuer).mcp ? "mcp" : "api");

/**
 * What a valid request is offered by our rules, or what is wrong with it, to send back to the
 * app: PKCE for every app (the library requires it of public clients only), a client id we can
 * store, scopes that exist (an MCP host naming none is offered its tools' scopes).
 */
function decide(request: AuthRequest, resource: ConsentFacts["resource"]): { problem: { code: "invalid_request" | "invalid_scope"; description: string } } | { scopes: Scope[] } {
  if (request.codeChallengeMethod !== "S256" || !request.codeChallenge) return { problem: { code: "invalid_request", description: consentMessages.pkce } };
  if (request.clientId.length > MAX_CLIENT_ID_LENGTH) return { problem: { code: "invalid_request", description: consentMessages.clientIdTooLong } };
  const offered = scopesToGrant(request.scope, resource === "mcp" ? toolScopes : null);
  return "error" in offered ? { problem: { code: "invalid_scope", description: offered.error } } : offered;
}

/**
 * GET: the consent page for a valid request. Without a session, the page to sign in first
 * (remembering this one to come back to); an agent is refused; a request we refuse goes back to
 * the app once a signed-in owner or admin is here.
 */
export async function showConsent(c: Ctx) {
  // Each visit may make the library fetch an app's metadata document from its site.
  await enforceIpRateLimit(c, OAUTH_AUTHORIZE_RATE_LIMIT);
  // Reached from the app's site, the page gets no session cookie (SameSite=Strict): it loads
  // itself again as this site's own navigation, which carries it.
  if (isCrossSite(c) && getCookie(c, SESSION_COOKIE) === undefined) {
    return render(c, <HopPage to={new URL(c.req.url).pathname + new URL(c.req.url).search} title="Connecting an app" link="Continue" />, 200);
  }
  const member = await memberSession(c);
  const { issuer, oauth } = helpersOf(c);
  let request: AuthRequest;
  let described: ConsentDescription;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
    described = await oauth.describeConsent(request);
  } catch (error) {
    return refusedRequest(c, error, member);
  }
  const resource = resourceOf(issuer, request);
  const decided = decide(request, resource);

  if (!member) {
    if ("problem" in decided) return render(c, <MessagePage title="This connection request is not valid" message={decided.problem.description} />, 400);
    rememberReturn(c, c.req.url);
    return render(c, <ConnectSignInPage clientName={described.clientName.slice(0, MAX_CLIENT_NAME_LENGTH)} redirectHost={described.redirectHost} />, 200);
  }
  if (!mayUseDashboard(member)) return agentRefused(c);
  if ("problem" in decided) return c.redirect(authorizationErrorRedirect(request, decided.problem.code, decided.problem.description), 302);
  c.set("session", member);
  // The page's form leads to the app's redirect URI (Approve and Deny both end there).
  c.set("formTarget", new URL(request.redirectUri).origin);
  const consent = await oauth.beginConsent({ ...request, scope: decided.scopes });
  for (const cookie of consent.headers.getSetCookie()) c.header("Set-Cookie", cookie, { append: true });
  return render(c, <ConsentPage session={member} facts={factsOf(described, resource, decided.scopes)} handle={consent.handle} />, 200);
}

/**
 * Before the form's own checks (the Origin check runs earlier for every POST, the CSRF token
 * after this): a live session, of an owner or admin.
 */
export const consentSession: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  const session = await memberSession(c);
  if (!session) return render(c, <MessagePage title="Request refused" message={consentMessages.sessionEnded} />, 403);
  if (!mayUseDashboard(session)) return agentRefused(c);
  c.set("session", session);
  await next();
};

/** A redirect carrying the library's headers (its consent cookie cleared, no caching). */
const redirectWith = (location: string, headers: Headers) => {
  headers.set("Location", location);
  return new Response(null, { status: 302, headers });
};

/**
 * POST: Approve or Deny. The request approved is the one the library stored for this browser
 * (never read from the form); the grant is the agency's, approved by this member, and a second
 * approval of the same app makes a second grant rather than ending the first (an app installing
 * twice at once must not lose the tokens it already holds).
 */
export async function decideConsent(c: Ctx) {
  const { session, form } = c.var;
  const handle = textField(form, "handle") ?? "";
  const decision = textField(form, "decision");
  const { oauth } = helpersOf(c);
  try {
    if (decision === "deny") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return redirectWith(denied.redirectTo, denied.headers);
    }
    if (decision !== "approve") return render(c, <MessagePage title="Request refused" message={consentMessages.decision} session={session} />, 400);
    const approved = await oauth.approveConsent(c.req.raw, handle);
    const { request } = approved;
    // The page described it a moment ago; should the app's metadata document fail now, the
    // approval stands with what the request itself says.
    const facts = await oauth.describeConsent(request).catch((error: unknown) => {
      if (!(error instanceof CimdFetchError)) throw error;
      return { clientName: request.clientId, clientDomain: undefined, redirectHost: new URL(request.redirectUri).hostname };
    });
    const props: GrantProps = {
      agency_uuid: session.agencyId,
      granted_by: session.memberId,
      client_name: facts.clientName.slice(0, MAX_CLIENT_NAME_LENGTH),
      client_domain: facts.clientDomain ?? null,
      redirect_host: facts.redirectHost,
    };
    const { redirectTo } = await oauth.completeAuthorization({
      request,
      userId: session.agencyId,
      metadata: { granted_by: session.memberId },
      scope: request.scope,
      props,
      revokeExistingGrants: false,
    });
    return redirectWith(redirectTo, approved.headers);
  } catch (error) {
    if (error instanceof AuthorizationError) {
      return render(c, <MessagePage title="This approval is no longer valid" message={error.description} session={session} />, 400);
    }
    throw error;
  }
}

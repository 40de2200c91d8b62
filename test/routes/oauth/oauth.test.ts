import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { scopes } from "@/lib/auth/scopes";
import { oauthScopeMessages } from "@/lib/auth/oauth-scopes";
import { messages } from "@/lib/errors";
import { toolScopes } from "@/mcp/tools";
import { consentMessages } from "@/dashboard/handlers/consent.handlers";
import { auditEntries, csrfOf, escaped, issueLink, signIn, TYPED_IN } from "../../helpers/dashboard";
import { setupAgency } from "../../helpers/factories";
import { admin, api, BASE, expectError } from "../../helpers/http";
import {
  authorizeUrl,
  browserOf,
  connectApp,
  consentForm,
  CookieJar,
  decide,
  exchangeCode,
  oauthCall,
  pkce,
  REDIRECT_URI,
  refresh,
  registerApp,
  visit,
} from "../../helpers/oauth";
import { dbOf, moveEnded, shardDb, shardNameOf } from "../../helpers/shards";
import { createEndpoint, stubReceiver } from "../../helpers/webhooks";

const grantRow = async (agencyUuid: string, grantId: string) =>
  (await dbOf(agencyUuid)).prepare("SELECT * FROM app_grants WHERE id = ?").bind(grantId).first<Record<string, any>>();

describe("OAuth discovery", () => {
  it("publishes the authorization server's metadata (RFC 8414): endpoints, PKCE S256 only, the API's scopes", async () => {
    const res = await oauthCall("GET", "/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/dashboard/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      scopes_supported: [...scopes],
      // Apps may name themselves by a metadata document URL (wrangler.toml's global_fetch_strictly_public).
      client_id_metadata_document_supported: true,
    });
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });

  it("publishes each resource's metadata (RFC 9728), naming the authorization server", async () => {
    const api = await oauthCall("GET", "/.well-known/oauth-protected-resource");
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ resource: BASE, authorization_servers: [BASE], scopes_supported: [...scopes], bearer_methods_supported: ["header"] });
    const mcp = await oauthCall("GET", "/.well-known/oauth-protected-resource/mcp");
    expect(mcp.status).toBe(200);
    expect(mcp.body).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [BASE], scopes_supported: [...toolScopes] });
  });

  it("names the resource metadata in every 401, so a client given only a URL finds the server", async () => {
    const mcp = await oauthCall("POST", "/mcp", { json: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { Accept: "application/json, text/event-stream" } });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("WWW-Authenticate")).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", scope="${toolScopes.join(" ")}"`,
    );
    const rest = await api("GET", "/contacts");
    expectError(rest, 401, messages.invalidToken, "invalid_token");
    expect(rest.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
    const bad = await api("GET", "/contacts", { token: "pa_not-a-real-token" });
    expect(bad.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource", error="invalid_token"`);
  });
});

describe("Dynamic client registration", () => {
  it("registers a public client and refuses metadata without redirect URIs", async () => {
    const { clientId } = await registerApp("Acme CRM");
    expect(clientId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const refused = await oauthCall("POST", "/oauth/register", { json: { client_name: "No redirect", token_endpoint_auth_method: "none" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_client_metadata");
  });

  it("limits registrations per client IP (60 a minute), in OAuth's error format", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}-${crypto.randomUUID().slice(0, 6)}`;
    const body = { client_name: "Flood", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
    const answers = await Promise.all(Array.from({ length: 62 }, () => oauthCall("POST", "/oauth/register", { json: body, ip })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(60);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited[0]!.body).toEqual({ error: "temporarily_unavailable", error_description: messages.rateLimited });
    expect(limited[0]!.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(Number(limited[0]!.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});

describe("Authorization code flow", () => {
  it("sends a visitor without a session to sign in, then back to the consent page naming the app, its host and each scope", async () => {
    const session = await signIn();
    const app = await registerApp("Acme <Sync>");
    const { challenge } = await pkce();
    const url = authorizeUrl({ clientId: app.clientId, scope: "contacts calendar", challenge });
    const browser = new CookieJar();

    const signInFirst = await visit(browser, "GET", url);
    expect(signInFirst.status).toBe(200);
    expect(signInFirst.html).toContain(escaped("Sign in to connect Acme <Sync>"));
    expect(signInFirst.html).toContain("app.example.com");
    expect(signInFirst.html).not.toContain('name="handle"');

    const { path } = await issueLink(session.memberUuid);
    const opened = await visit(browser, "GET", path, undefined, TYPED_IN.headers);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(url);

    const consent = await visit(browser, "GET", opened.location!);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain(escaped("Connect Acme <Sync> to"));
    expect(consent.html).toContain('<strong class="redirect-host">app.example.com</strong>');
    expect(consent.html).toContain("This app registered itself");
    expect(consent.html).toContain('<li data-scope="calendar"><code>calendar</code> — availability and create bookings</li>');
    expect(consent.html).toContain('<li data-scope="contacts"><code>contacts</code> — contact CRM read and write, tags, sources, restore</li>');
    expect(consent.html).toContain('<button type="submit" name="decision" value="approve">');
    expect(consent.html).toContain('<button type="submit" name="decision" value="deny" class="secondary">');
    // Its form may lead to the app (Approve and Deny redirect there), and nowhere else.
    expect(consent.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://app.example.com;");
    expect(consent.headers.get("X-Frame-Options")).toBe("DENY");
  });

  it("approves: the code comes back with state and iss, and exchanges once for tokens naming the agency", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { verifier, challenge } = await pkce();
    const back = await decide(browserOf(session), authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge, state: "xyz" }), "approve");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("state")).toBe("xyz");
    expect(back.searchParams.get("iss")).toBe(BASE);
    const code = back.searchParams.get("code")!;

    const wrong = await exchangeCode(app.clientId, code, (await pkce()).verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");

    const tokens = await exchangeCode(app.clientId, code, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "contacts", agency_uuid: session.agencyUuid, resource: BASE });
    expect(tokens.body.access_token).toMatch(new RegExp(`^${session.agencyUuid}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{32}$`));
    expect(typeof tokens.body.refresh_token).toBe("string");
    expect(tokens.headers.get("Cache-Control")).toContain("no-store");
    expect(tokens.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api("GET", "/contacts", { token: tokens.body.access_token })).status).toBe(200);

    const grantId = (tokens.body.access_token as string).split(":")[1]!;
    expect(await grantRow(session.agencyUuid, grantId)).toMatchObject({
      agency_id: session.agencyUuid,
      client_id: app.clientId,
      client_name: app.name,
      redirect_host: "app.example.com",
      resource: BASE,
      scopes: '["contacts"]',
      granted_by: session.memberUuid,
      revoked_at: null,
    });
    expect((await auditEntries(session.agencyUuid))[0]).toMatchObject({ actor_type: "member", actor_id: session.memberUuid, action: "app.authorized", target_type: "app_grant", target_id: grantId });
  });

  it("refuses a reused code, and ends the grant it came from (a stolen code must not outlive its theft)", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { verifier, challenge } = await pkce();
    const back = await decide(browserOf(session), authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge }), "approve");
    const code = back.searchParams.get("code")!;
    const first = await exchangeCode(app.clientId, code, verifier);
    expect(first.status).toBe(200);
    expect((await api("GET", "/contacts", { token: first.body.access_token })).status).toBe(200);

    const again = await exchangeCode(app.clientId, code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expectError(await api("GET", "/contacts", { token: first.body.access_token }), 401, messages.invalidToken, "invalid_token");
    const grantId = (first.body.access_token as string).split(":")[1]!;
    expect((await grantRow(session.agencyUuid, grantId))?.revoked_at).not.toBeNull();
  });

  it("denies: the app hears access_denied with its state, and nothing is granted", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { challenge } = await pkce();
    const back = await decide(browserOf(session), authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge, state: "s-1" }), "deny");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s-1");
    expect(back.searchParams.get("code")).toBeNull();
    expect((await admin("GET", `/agencies/${session.agencyUuid}/grants?include_revoked=true`)).body.grants).toEqual([]);
  });

  it("takes a consent page's answer once: the same form sent again is refused", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { challenge } = await pkce();
    const browser = browserOf(session);
    const page = await visit(browser, "GET", authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge }));
    const form = consentForm(page.html);
    const jarBefore = browser.header();
    expect((await visit(browser, "POST", "/dashboard/oauth/authorize", { ...form, decision: "approve" })).status).toBe(302);
    const replay = await visit(new CookieJar(Object.fromEntries(jarBefore.split("; ").map((c) => c.split("=") as [string, string]))), "POST", "/dashboard/oauth/authorize", { ...form, decision: "approve" });
    expect(replay.status).toBe(400);
    expect(replay.html).toContain("This authorization expired or was already used; start again");
  });

  it("exchanges a code sent three times at once for tokens once, and ends the grant its code was used twice for", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { verifier, challenge } = await pkce();
    const back = await decide(browserOf(session), authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge }), "approve");
    const code = back.searchParams.get("code")!;
    const answers = await Promise.all([1, 2, 3].map(() => exchangeCode(app.clientId, code, verifier)));
    const issued = answers.filter((a) => a.status === 200);
    expect(issued).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body).toMatchObject({ error: "invalid_grant", error_description: "Authorization code already used" });
    // OAuth 2.1 §4.1.3: a code used more than once may be in a thief's hands; its tokens end too.
    expectError(await api("GET", "/contacts", { token: issued[0]!.body.access_token }), 401, messages.invalidToken, "invalid_token");
    const grantId = (issued[0]!.body.access_token as string).split(":")[1]!;
    expect((await grantRow(session.agencyUuid, grantId))?.revoked_at).not.toBeNull();
  });

  it("refuses an access token the app revoked (RFC 7009) from its next request; its grant and refresh token live on", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    const revoked = await oauthCall("POST", "/oauth/token", { form: { token: app.accessToken, token_type_hint: "access_token", client_id: app.clientId } });
    expect(revoked.status).toBe(200);
    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
    const renewed = await refresh(app.clientId, app.refreshToken);
    expect(renewed.status).toBe(200);
    expect((await api("GET", "/contacts", { token: renewed.body.access_token })).status).toBe(200);
    expect((await grantRow(session.agencyUuid, app.grantId))?.revoked_at).toBeNull();
  });

  it("refreshes: a new access token works, the grant stays one", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    const renewed = await refresh(app.clientId, app.refreshToken);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "contacts", agency_uuid: session.agencyUuid });
    expect(renewed.body.access_token).not.toBe(app.accessToken);
    expect(renewed.body.access_token.split(":")[1]).toBe(app.grantId);
    expect((await api("GET", "/contacts", { token: renewed.body.access_token })).status).toBe(200);
    expect((await admin("GET", `/agencies/${session.agencyUuid}/grants`)).body.grants).toHaveLength(1);
  });

  it("refuses an agent: a member demoted while the consent page was open can neither see nor answer it", async () => {
    const session = await signIn({ role: "admin" });
    const app = await registerApp();
    const { challenge } = await pkce();
    const browser = browserOf(session);
    const url = authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge });
    const page = await visit(browser, "GET", url);
    expect(page.status).toBe(200);
    const demoted = await api("PATCH", `/users/${session.memberUuid}/role`, { token: session.token, body: { role: "agent" } });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);

    const answered = await visit(browser, "POST", "/dashboard/oauth/authorize", { ...consentForm(page.html), decision: "approve" });
    expect(answered.status).toBe(403);
    expect(answered.html).toContain(escaped(consentMessages.agentRole));
    const reopened = await visit(browser, "GET", url);
    expect(reopened.status).toBe(403);
    expect(reopened.html).toContain(escaped(consentMessages.agentRole));
    expect((await admin("GET", `/agencies/${session.agencyUuid}/grants?include_revoked=true`)).body.grants).toEqual([]);
  });

  it("sends a request for scopes that do not exist back to the app with invalid_scope; an MCP host asking for none is offered the tools' scopes", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { challenge } = await pkce();
    for (const [scope, reason] of [
      ["contacts bogus", oauthScopeMessages.unknown("bogus")],
      ["*", oauthScopeMessages.wildcard],
      ["", oauthScopeMessages.missing],
    ] as const) {
      const page = await visit(browserOf(session), "GET", authorizeUrl({ clientId: app.clientId, scope, challenge }));
      expect(page.status, scope).toBe(302);
      const back = new URL(page.location!);
      expect(back.searchParams.get("error")).toBe("invalid_scope");
      expect(back.searchParams.get("error_description")).toBe(reason);
    }
    const mcp = await visit(browserOf(session), "GET", authorizeUrl({ clientId: app.clientId, challenge, resource: `${BASE}/mcp` }));
    expect(mcp.status).toBe(200);
    expect([...mcp.html.matchAll(/<li data-scope="([^"]+)">/g)].map((m) => m[1])).toEqual([...toolScopes]);
    // offline_access asks for nothing more: every grant gets a refresh token.
    const offline = await visit(browserOf(session), "GET", authorizeUrl({ clientId: app.clientId, scope: "contacts offline_access", challenge }));
    expect([...offline.html.matchAll(/<li data-scope="([^"]+)">/g)].map((m) => m[1])).toEqual(["contacts"]);
  });

  it("accepts an app named by its Client ID Metadata Document URL, and shows the domain that vouches for it", async () => {
    const session = await signIn();
    const clientId = `https://app.example.com/oauth/client-${crypto.randomUUID()}.json`;
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new Request(input, init).url;
      if (url !== clientId) return realFetch(input, init);
      fetched.push(url);
      return Response.json(
        { client_id: clientId, client_name: "Metadata App", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] },
        { headers: { "Cache-Control": "no-store" } },
      );
    });
    try {
      const { verifier, challenge } = await pkce();
      const browser = browserOf(session);
      const page = await visit(browser, "GET", authorizeUrl({ clientId, scope: "contacts", challenge }));
      expect(page.status, page.html).toBe(200);
      expect(page.html).toContain("Published by <strong>app.example.com</strong>");
      expect(fetched.length).toBeGreaterThan(0);
      const answered = await visit(browser, "POST", "/dashboard/oauth/authorize", { ...consentForm(page.html), decision: "approve" });
      const code = new URL(answered.location!).searchParams.get("code")!;
      const tokens = await exchangeCode(clientId, code, verifier);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const grantId = (tokens.body.access_token as string).split(":")[1]!;
      expect(await grantRow(session.agencyUuid, grantId)).toMatchObject({ client_id: clientId, client_name: "Metadata App", client_domain: "app.example.com" });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("reached from the app's site (no SameSite=Strict cookie on that navigation), loads itself again as this site's own navigation", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { challenge } = await pkce();
    const url = authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge });
    // What the browser sends coming from the app: Sec-Fetch-Site cross-site, and no session cookie.
    const arriving = await visit(new CookieJar(), "GET", url, undefined, { "Sec-Fetch-Site": "cross-site" });
    expect(arriving.status).toBe(200);
    expect(arriving.html).toContain(`<meta http-equiv="refresh" content="0; url=${escaped(url)}"/>`);
    expect(arriving.html).not.toContain('name="handle"');
    // The page's own navigation carries the session: the consent page.
    const reloaded = await visit(browserOf(session), "GET", url, undefined, { "Sec-Fetch-Site": "same-origin" });
    expect(reloaded.status).toBe(200);
    expect(reloaded.html).toContain('name="handle"');
  });

  it("requires PKCE (S256) of every app, a confidential one too", async () => {
    const session = await signIn();
    const registered = await oauthCall("POST", "/oauth/register", { json: { client_name: "Server app", redirect_uris: [REDIRECT_URI] } });
    expect(registered.status).toBe(201);
    expect(typeof registered.body.client_secret).toBe("string");
    const url = `/dashboard/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: registered.body.client_id, redirect_uri: REDIRECT_URI, scope: "contacts", state: "s" })}`;
    const page = await visit(browserOf(session), "GET", url);
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(back.searchParams.get("error")).toBe("invalid_request");
    expect(back.searchParams.get("error_description")).toBe(consentMessages.pkce);
    expect((await visit(browserOf(session), "GET", `${url}&code_challenge=abc&code_challenge_method=plain`)).status).not.toBe(200);
  });

  it("sends nothing back to an app before a signed-in owner or admin is here: a refused request is shown on its own page", async () => {
    const app = await registerApp("Anyone can register", "https://evil.example.net/cb");
    const { challenge } = await pkce();
    for (const url of [
      authorizeUrl({ clientId: app.clientId, redirectUri: "https://evil.example.net/cb", scope: "bogus", challenge }),
      authorizeUrl({ clientId: app.clientId, redirectUri: "https://evil.example.net/cb", scope: "contacts", challenge, resource: "https://elsewhere.example/" }),
    ]) {
      const page = await visit(new CookieJar(), "GET", url);
      expect(page.status, url).toBe(400);
      expect(page.location, url).toBeNull();
    }
  });

  it("shows an invalid request on its own page, never redirecting to an unregistered URI", async () => {
    const session = await signIn();
    const app = await registerApp();
    const { challenge } = await pkce();
    const page = await visit(browserOf(session), "GET", authorizeUrl({ clientId: app.clientId, scope: "contacts", challenge, redirectUri: "https://evil.example.net/cb" }));
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    const unknown = await visit(browserOf(session), "GET", authorizeUrl({ clientId: "AAAAAAAAAAAAAAAA", scope: "contacts", challenge }));
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeNull();
  });
});

describe("Requests with an OAuth token", () => {
  it("answers a granted scope, refuses another with 403, and finds no other agency's record", async () => {
    const session = await signIn();
    const other = await setupAgency();
    const mine = await api("POST", "/contacts", { token: session.token, body: { first_name: "Ada", last_name: "Mine" } });
    const theirs = await api("POST", "/contacts", { token: other.token, body: { first_name: "Bob", last_name: "Theirs" } });
    const app = await connectApp(session, "contacts");

    const read = await api("GET", `/contacts/${mine.body.contact.contact_uuid}`, { token: app.accessToken });
    expect(read.status).toBe(200);
    expect(read.body.contact.first_name).toBe("Ada");
    const created = await api("POST", "/contacts", { token: app.accessToken, body: { first_name: "Cy", last_name: "App" } });
    expect(created.status).toBe(201);
    const refused = await api("GET", "/messages", { token: app.accessToken });
    expectError(refused, 403, messages.missingScope("messages"), "insufficient_scope");
    expect(refused.headers.get("WWW-Authenticate")).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource", error="insufficient_scope", scope="messages"`,
    );
    expectError(await api("GET", `/contacts/${theirs.body.contact.contact_uuid}`, { token: app.accessToken }), 404);
    // A change made by the app is the app's in the audit log (webhook endpoints are audited).
    const scoped = await connectApp(session, "webhooks");
    expect((await createEndpoint(scoped.accessToken)).endpoint.status).toBe("enabled");
    expect((await auditEntries(session.agencyUuid))[0]).toMatchObject({ actor_type: "app_grant", actor_id: scoped.grantId, action: "webhook_endpoint.created" });
  });

  it("counts each grant against the route's limit on its own, in its own gate", async () => {
    const session = await signIn();
    const [first, second] = [await connectApp(session, "contacts"), await connectApp(session, "contacts")];
    const answers = await Promise.all(Array.from({ length: 62 }, () => api("GET", "/contacts/tags", { token: first.accessToken })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(2);
    expectError(limited[0]!, 429, messages.rateLimited, "rate_limited");
    expect(limited[0]!.headers.get("RateLimit-Policy")).toBe("60;w=60");
    const fresh = await api("GET", "/contacts/tags", { token: second.accessToken });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("RateLimit-Remaining")).toBe("59");
    // The agency's API key is untouched by the apps' traffic.
    expect((await api("GET", "/contacts/tags", { token: session.token })).headers.get("RateLimit-Remaining")).toBe("59");
  });

  it("records when the app last used its grant, behind the request, and shows it on Connected apps", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    expect((await grantRow(session.agencyUuid, app.grantId))?.last_used_at).toBeNull();
    const before = new Date().toISOString();
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    await vi.waitFor(async () => expect((await grantRow(session.agencyUuid, app.grantId))?.last_used_at ?? "").not.toBe(""), { timeout: 5_000, interval: 50 });
    const usedAt = (await grantRow(session.agencyUuid, app.grantId))!.last_used_at as string;
    expect(usedAt >= before).toBe(true);
    const page = await visit(browserOf(session), "GET", "/dashboard/integrations/apps");
    expect(page.html).toContain(`<time datetime="${usedAt}">`);
  });

  it("scales a grant's limits when the operator sets its multiplier, from its next request", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    expect((await api("GET", "/contacts/tags", { token: app.accessToken })).headers.get("RateLimit-Limit")).toBe("60");
    const scaled = await admin("PATCH", `/agencies/${session.agencyUuid}/grants/${app.grantId}`, { rate_limit_multiplier: 2.5 });
    expect(scaled.status, JSON.stringify(scaled.body)).toBe(200);
    expect(scaled.body.grant).toMatchObject({ grant_id: app.grantId, rate_limit_multiplier: 2.5 });
    const after = await api("GET", "/contacts/tags", { token: app.accessToken });
    expect(after.headers.get("RateLimit-Limit")).toBe("150");
    expect(after.headers.get("RateLimit-Remaining")).toBe("148");
    expect((await admin("PATCH", `/agencies/${session.agencyUuid}/grants/${app.grantId}`, { rate_limit_multiplier: 0 })).status).toBe(400);
    expect((await admin("PATCH", `/agencies/${session.agencyUuid}/grants/${app.grantId}`, { rate_limit_multiplier: 2, scopes: ["*"] })).status).toBe(400);
  });

  it("refuses an MCP host's token on the REST routes: its audience is /mcp", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts", { resource: `${BASE}/mcp` });
    expect(app.answer.resource).toBe(`${BASE}/mcp`);
    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
  });

  it("keeps an app's token working when its agency moves to another shard: the grant moves with it", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    const from = await shardNameOf(session.agencyUuid);
    const to = from === "DB" ? "DB_EU" : "DB";
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    const moved = await admin("POST", `/agencies/${session.agencyUuid}/move`, { shard: to });
    expect(moved.status, JSON.stringify(moved.body)).toBe(202);
    expect(await moveEnded(session.agencyUuid)).toMatchObject({ state: "done" });
    // A write: the grant's gate was told of the move, so it reaches the new shard, not the old one's fence.
    expect((await api("POST", "/contacts", { token: app.accessToken, body: { first_name: "After", last_name: "Move" } })).status).toBe(201);
    expect(await shardDb(to).prepare("SELECT id FROM app_grants WHERE id = ?").bind(app.grantId).first("id")).toBe(app.grantId);
    expect(await shardDb(from).prepare("SELECT count(*) AS n FROM app_grants WHERE id = ?").bind(app.grantId).first("n")).toBe(0);
    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${app.grantId}`)).status).toBe(204);
    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
  });

  it("refuses a token whose text was changed", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    const [agency, grant, secret] = app.accessToken.split(":") as [string, string, string];
    const flipped = `${agency}:${grant}:${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    expectError(await api("GET", "/contacts", { token: flipped }), 401, messages.invalidToken, "invalid_token");
    const otherAgency = await setupAgency();
    expectError(await api("GET", "/contacts", { token: `${otherAgency.agencyUuid}:${grant}:${secret}` }), 401, messages.invalidToken, "invalid_token");
  });
});

describe("Revoking a connected app", () => {
  it("from the dashboard: listed with who approved it, revoked after confirmation, its token 401 on the next request", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts calendar", { name: "Revocable App" });
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);

    const browser = browserOf(session);
    const list = await visit(browser, "GET", "/dashboard/integrations/apps");
    expect(list.status).toBe(200);
    expect(list.html).toContain(`<tr data-grant="${app.grantId}">`);
    expect(list.html).toContain("Revocable App");
    expect(list.html).toContain(escaped(session.memberName));
    expect(list.html).toContain("<td>calendar, contacts</td>");
    const confirm = await visit(browser, "GET", `/dashboard/integrations/apps/${app.grantId}/revoke`);
    expect(confirm.status).toBe(200);
    const revoked = await visit(browser, "POST", `/dashboard/integrations/apps/${app.grantId}/revoke`, { _csrf: csrfOf(confirm.html) });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/dashboard/integrations/apps?notice=revoked");

    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
    const renewed = await refresh(app.clientId, app.refreshToken);
    expect(renewed.status).toBe(400);
    expect(renewed.body.error).toBe("invalid_grant");
    expect((await grantRow(session.agencyUuid, app.grantId))?.revoked_at).not.toBeNull();
    expect((await auditEntries(session.agencyUuid))[0]).toMatchObject({ actor_type: "member", actor_id: session.memberUuid, action: "app.revoked", target_id: app.grantId });
    expect((await visit(browser, "GET", "/dashboard/integrations/apps")).html).toContain("revoked");
  });

  it("from the operator API: listed, revoked with 204, its token 401 on the next request; another agency's grant is 404", async () => {
    const session = await signIn();
    const other = await signIn();
    const app = await connectApp(session, "contacts");
    const theirs = await connectApp(other, "contacts");
    const listed = await admin("GET", `/agencies/${session.agencyUuid}/grants`);
    expect(listed.status).toBe(200);
    expect(listed.body.grants).toEqual([
      expect.objectContaining({ grant_id: app.grantId, client_id: app.clientId, client_name: app.name, scopes: ["contacts"], granted_by: session.memberUuid, revoked_at: null }),
    ]);
    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${theirs.grantId}`)).status).toBe(404);
    expect((await api("GET", "/contacts", { token: theirs.accessToken })).status).toBe(200);

    const deleted = await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${app.grantId}`);
    expect(deleted.status).toBe(204);
    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
    expect((await admin("GET", `/agencies/${session.agencyUuid}/grants`)).body.grants).toEqual([]);
    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${app.grantId}`)).status).toBe(204);
    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/not-a-grant`)).status).toBe(400);
  });

  it("when the app revokes its own refresh token (RFC 7009): the grant ends and the agency hears of it", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts");
    const revoked = await oauthCall("POST", "/oauth/token", { form: { token: app.refreshToken, token_type_hint: "refresh_token", client_id: app.clientId } });
    expect(revoked.status).toBe(200);
    expect((await grantRow(session.agencyUuid, app.grantId))?.revoked_at).not.toBeNull();
    expectError(await api("GET", "/contacts", { token: app.accessToken }), 401, messages.invalidToken, "invalid_token");
  });

  it("delivers app.authorized and app.revoked to the agency's webhooks, signed", async () => {
    const session = await signIn();
    const { endpoint, secret } = await createEndpoint(session.token, { events: ["app.authorized", "app.revoked"] });
    const receiver = stubReceiver(endpoint.url);
    const app = await connectApp(session, "contacts");
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${app.grantId}`)).status).toBe(204);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2), { timeout: 10_000, interval: 50 });

    const [authorized, revoked] = receiver.received.map((r) => new Webhook(secret).verify(r.body, r.headers) as Record<string, any>);
    expect(authorized).toMatchObject({
      type: "app.authorized",
      data: { object: { grant_id: app.grantId, client_id: app.clientId, client_name: app.name, scopes: ["contacts"], granted_by: session.memberUuid, revoked_at: null } },
    });
    expect(revoked).toMatchObject({ type: "app.revoked", data: { object: { grant_id: app.grantId } } });
    expect(revoked!.data.object.revoked_at).not.toBeNull();
    const listed = await api("GET", "/events?type=app.revoked", { token: session.token });
    expect(listed.body.events.map((e: { event_uuid: string }) => e.event_uuid)).toEqual([revoked!.event_uuid]);
  });
});

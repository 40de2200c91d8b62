import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { toolScopes } from "@/mcp/tools";
import { signIn, type SignedIn } from "../helpers/dashboard";
import { admin, api, BASE } from "../helpers/http";
import { browserOf, connectApp, consentForm, visit } from "../helpers/oauth";

const CALLBACK = "http://localhost:6274/oauth/callback";

/**
 * An MCP host's side of OAuth, as the official SDK asks a host to keep it: its registration,
 * its tokens and its PKCE verifier, in memory; "redirecting" the user means remembering the URL
 * (the test then plays the agency owner's browser).
 */
class HostOAuth implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private client: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = "";

  get redirectUrl() {
    return CALLBACK;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Inspector-like host", redirect_uris: [CALLBACK], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }
}

/** Everything the host sends goes to the Worker under test; `sent` records each request's path and status. */
function hostFetch(sent: string[]) {
  return async (url: string | URL, init?: RequestInit) => {
    const response = await exports.default.fetch(new Request(url, init));
    sent.push(`${init?.method ?? "GET"} ${new URL(url).pathname} ${response.status}`);
    return response;
  };
}

/** The agency owner, in their browser: the consent page the host sent them to, approved. */
async function approveInBrowser(session: SignedIn, authorizationUrl: URL) {
  const browser = browserOf(session);
  const page = await visit(browser, "GET", `${authorizationUrl.pathname}${authorizationUrl.search}`);
  expect(page.status, page.html).toBe(200);
  const answered = await visit(browser, "POST", "/dashboard/oauth/authorize", { ...consentForm(page.html), decision: "approve" });
  expect(answered.status, answered.html).toBe(302);
  return new URL(answered.location!);
}

describe("MCP hosts connecting with OAuth", () => {
  it("connects the official MCP client by URL alone: 401, discovery, registration, consent, PKCE, tools", async () => {
    const session = await signIn();
    const provider = new HostOAuth();
    const sent: string[] = [];
    const url = new URL(`${BASE}/mcp`);

    const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: hostFetch(sent) });
    await expect(new Client({ name: "host", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(sent).toEqual(
      expect.arrayContaining([
        "POST /mcp 401",
        "GET /.well-known/oauth-protected-resource/mcp 200",
        "GET /.well-known/oauth-authorization-server 200",
        "POST /oauth/register 201",
      ]),
    );
    const asked = provider.authorizationUrl!;
    expect(asked.pathname).toBe("/dashboard/oauth/authorize");
    expect(asked.searchParams.get("resource")).toBe(`${BASE}/mcp`);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("scope")).toBe(toolScopes.join(" "));

    const back = await approveInBrowser(session, asked);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    await first.finishAuth(back.searchParams);
    expect(provider.tokens()?.access_token).toMatch(new RegExp(`^${session.agencyUuid}:`));

    const client = new Client({ name: "host", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: hostFetch(sent) }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("search_contacts");
    const created = await api("POST", "/contacts", { token: session.token, body: { first_name: "Grace", last_name: "Hopper" } });
    const found = (await client.callTool({ name: "get_contact", arguments: { contact_uuid: created.body.contact.contact_uuid } })) as { isError?: boolean; structuredContent?: any };
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent.contact.first_name).toBe("Grace");
    await client.close();

    const grants = (await admin("GET", `/agencies/${session.agencyUuid}/grants`)).body.grants;
    expect(grants).toEqual([expect.objectContaining({ client_name: "Inspector-like host", resource: `${BASE}/mcp`, redirect_host: "localhost", scopes: [...toolScopes] })]);
  });

  it("lists only the granted tools, carries them out, and refuses the token on the next request once the grant is revoked", async () => {
    const session = await signIn();
    const app = await connectApp(session, "contacts", { resource: `${BASE}/mcp` });
    const client = new Client({ name: "host", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
      requestInit: { headers: { Authorization: `Bearer ${app.accessToken}` } },
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["get_contact", "search_contacts", "upsert_contacts"]);
    const upserted = (await client.callTool({ name: "upsert_contacts", arguments: { contacts: [{ first_name: "Ada", last_name: "Agent", email: "ada.agent@example.com" }] } })) as {
      structuredContent?: any;
    };
    expect(upserted.structuredContent.results[0].status).toBe("created");
    await expect(client.callTool({ name: "list_events", arguments: {} })).rejects.toThrow("Tool list_events not found");

    expect((await admin("DELETE", `/agencies/${session.agencyUuid}/grants/${app.grantId}`)).status).toBe(204);
    const after = await exports.default.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${app.accessToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(after.status).toBe(401);
    expect(after.headers.get("WWW-Authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`);
  });

  it("accepts an app's API token on /mcp too: /mcp is a path beneath its audience", async () => {
    const session = await signIn();
    const apiApp = await connectApp(session, "contacts");
    const res = await exports.default.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiApp.accessToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"name":"search_contacts"');
  });
});

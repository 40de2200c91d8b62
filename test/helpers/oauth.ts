import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { BASE, call, uniqueIp } from "./http";
import { SESSION_COOKIE, type SignedIn } from "./dashboard";

/** A browser's cookies for this origin: what responses set, sent back on the next request. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  constructor(initial: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(initial)) this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  take(response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(";");
      const separator = pair!.indexOf("=");
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  has(name: string) {
    return this.cookies.has(name);
  }

  names() {
    return [...this.cookies.keys()];
  }
}

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

/** A browser request: the jar's cookies, no redirects followed; what the response sets goes in the jar. */
export async function visit(jar: CookieJar, method: string, url: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
  const target = url.startsWith("http") ? url : `${BASE}${url}`;
  const init: RequestInit = { method, redirect: "manual", headers: { ...headers, Cookie: jar.header() } };
  if (form) {
    init.body = new URLSearchParams(form).toString();
    (init.headers as Record<string, string>)["Content-Type"] = "application/x-www-form-urlencoded";
    (init.headers as Record<string, string>).Origin ??= BASE;
  }
  const res = await exports.default.fetch(target, init);
  jar.take(res);
  return { status: res.status, headers: res.headers, html: await res.text(), location: res.headers.get("Location") };
}

/** A jar holding the member's dashboard session, as their browser would. */
export const browserOf = (session: Pick<SignedIn, "cookie">) => new CookieJar({ [SESSION_COOKIE]: session.cookie });

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

/** RFC 7636 S256: a random verifier and its challenge. */
export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

export const REDIRECT_URI = "https://app.example.com/oauth/callback";

/** Sends one OAuth request to the Worker (JSON or form body), from its own client IP. */
export function oauthCall(method: string, path: string, options: { json?: unknown; form?: Record<string, string>; ip?: string; headers?: Record<string, string> } = {}) {
  const form = options.form && { rawBody: new URLSearchParams(options.form).toString(), headers: { "Content-Type": "application/x-www-form-urlencoded", ...options.headers } };
  return call(method, path, { ip: options.ip ?? uniqueIp(), body: options.json, headers: options.headers, ...form });
}

/** Dynamic client registration of a public client (PKCE, no secret), as an MCP host does it. */
export async function registerApp(name = `Acme Sync ${crypto.randomUUID().slice(0, 6)}`, redirectUri = REDIRECT_URI) {
  const res = await oauthCall("POST", "/oauth/register", {
    json: { client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { clientId: res.body.client_id as string, name, redirectUri };
}

export interface AuthorizeRequest {
  clientId: string;
  redirectUri?: string;
  scope?: string;
  resource?: string;
  state?: string;
  challenge: string;
}

export function authorizeUrl(request: AuthorizeRequest) {
  const url = new URL("/dashboard/oauth/authorize", BASE);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri ?? REDIRECT_URI);
  if (request.scope !== undefined) url.searchParams.set("scope", request.scope);
  if (request.resource !== undefined) url.searchParams.set("resource", request.resource);
  url.searchParams.set("state", request.state ?? "state-123");
  url.searchParams.set("code_challenge", request.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  return `${url.pathname}${url.search}`;
}

/** The consent form's hidden fields on a consent page. */
export function consentForm(html: string) {
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(handle, "no consent handle in the page").toBeDefined();
  expect(csrf, "no CSRF field in the page").toBeDefined();
  return { handle: handle!, _csrf: csrf! };
}

/** Opens the consent page in the member's browser and answers it; returns the redirect back to the app. */
export async function decide(jar: CookieJar, path: string, decision: "approve" | "deny") {
  const page = await visit(jar, "GET", path);
  expect(page.status, page.html).toBe(200);
  const answered = await visit(jar, "POST", "/dashboard/oauth/authorize", { ...consentForm(page.html), decision });
  expect(answered.status, answered.html).toBe(302);
  return new URL(answered.location!);
}

/** The token endpoint's answer to a code exchange. */
export const exchangeCode = (clientId: string, code: string, verifier: string, redirectUri = REDIRECT_URI) =>
  oauthCall("POST", "/oauth/token", { form: { grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: redirectUri } });

export const refresh = (clientId: string, refreshToken: string) =>
  oauthCall("POST", "/oauth/token", { form: { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken } });

export interface ConnectedApp {
  clientId: string;
  name: string;
  accessToken: string;
  refreshToken: string;
  grantId: string;
  answer: Record<string, any>;
}

/** The whole flow for a signed-in owner or admin: register, approve, exchange. */
export async function connectApp(session: SignedIn, scope: string, options: { resource?: string; name?: string } = {}): Promise<ConnectedApp> {
  const app = await registerApp(options.name);
  const { verifier, challenge } = await pkce();
  const back = await decide(browserOf(session), authorizeUrl({ clientId: app.clientId, scope, challenge, ...(options.resource ? { resource: options.resource } : {}) }), "approve");
  const code = back.searchParams.get("code");
  expect(code, back.toString()).not.toBeNull();
  const tokens = await exchangeCode(app.clientId, code!, verifier);
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return {
    clientId: app.clientId,
    name: app.name,
    accessToken: tokens.body.access_token,
    refreshToken: tokens.body.refresh_token,
    grantId: (tokens.body.access_token as string).split(":")[1]!,
    answer: tokens.body,
  };
}

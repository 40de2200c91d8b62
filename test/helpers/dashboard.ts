import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { admin, BASE } from "./http";
import { createMember, setupAgency, type TestAgency } from "./factories";
import { dbOf } from "./shards";

export const SESSION_COOKIE = "__Host-pa_session";
export const KEYS_PATH = "/dashboard/integrations/api-keys";
export const WEBHOOKS_PATH = "/dashboard/integrations/webhooks";
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** Where a redirect points. */
  location: string | null;
}

/** A browser-like request to the Worker: no redirects followed, the session cookie when given. */
export async function browse(method: string, path: string, options: { cookie?: string; form?: URLSearchParams; headers?: Record<string, string> } = {}): Promise<Page> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.Cookie = `${SESSION_COOKIE}=${options.cookie}`;
  if (options.form) headers["Content-Type"] = "application/x-www-form-urlencoded";
  const res = await exports.default.fetch(`${BASE}${path}`, { method, headers, body: options.form?.toString(), redirect: "manual" });
  return { status: res.status, headers: res.headers, html: await res.text(), location: res.headers.get("Location") };
}

/** The HTML-escaped form of a text, as a page shows it (hono/jsx escapes & < > " '). */
export const escaped = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");

/** The value of the input with this id (a secret shown once, the CSRF token). */
export function inputValue(html: string, id: string): string {
  const match = new RegExp(`<input id="${id}"[^>]*? value="([^"]*)"`).exec(html);
  expect(match, `no input #${id} in the page`).not.toBeNull();
  return match![1]!;
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  expect(match, "no CSRF field in the page").not.toBeNull();
  return match![1]!;
}

/** The session secret a sign-in response set. */
export function sessionCookieOf(page: Page): string {
  const setCookie = page.headers.get("Set-Cookie") ?? "";
  const match = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(setCookie);
  expect(match, `no session cookie in ${setCookie}`).not.toBeNull();
  return match![1]!;
}

/** POST /admin/v1/members/{uuid}/dashboard-links, expecting 201; returns the URL's path and the link. */
export async function issueLink(memberUuid: string) {
  const res = await admin("POST", `/members/${memberUuid}/dashboard-links`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const url = new URL(res.body.url as string);
  return { path: url.pathname, url: res.body.url as string, expiresAt: res.body.expires_at as string };
}

export interface SignedIn extends TestAgency {
  memberUuid: string;
  memberName: string;
  cookie: string;
  csrf: string;
}

/**
 * A fresh agency (with a `*` key for the Partner API) and one of its members signed in to the
 * dashboard through a one-time link: every test gets its own.
 */
export async function signIn(options: { role?: "owner" | "admin"; agency?: TestAgency } = {}): Promise<SignedIn> {
  const agency = options.agency ?? (await setupAgency());
  const memberName = `Morgan ${options.role ?? "owner"} ${crypto.randomUUID().slice(0, 6)}`;
  const memberUuid = await createMember(agency.agencyUuid, { role: options.role ?? "owner", name: memberName });
  const cookie = await signInMember(memberUuid);
  const keysPage = await browse("GET", KEYS_PATH, { cookie });
  expect(keysPage.status).toBe(200);
  return { ...agency, memberUuid, memberName, cookie, csrf: csrfOf(keysPage.html) };
}

/** A link opened as a browser does when it is typed or pasted in (which the 303 answers). */
export const TYPED_IN = { headers: { "Sec-Fetch-Site": "none" } };

/** Opens a fresh link of the member; returns the session cookie. */
export async function signInMember(memberUuid: string) {
  const { path } = await issueLink(memberUuid);
  const opened = await browse("GET", path, TYPED_IN);
  expect(opened.status, opened.html).toBe(303);
  return sessionCookieOf(opened);
}

/** Submits a dashboard form the way a browser does: url-encoded, this origin, the session's CSRF token. */
export function submit(session: Pick<SignedIn, "cookie" | "csrf">, path: string, fields: Record<string, string | string[]> = {}, options: { csrf?: string | null; origin?: string | null } = {}) {
  const form = new URLSearchParams();
  const csrf = options.csrf === undefined ? session.csrf : options.csrf;
  if (csrf !== null) form.append("_csrf", csrf);
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
  const origin = options.origin === undefined ? BASE : options.origin;
  return browse("POST", path, { cookie: session.cookie, form, headers: origin === null ? {} : { Origin: origin } });
}

/** Creates a key on the dashboard (expecting the 201 page); returns its id and the two secrets the page showed once. */
export async function createKeyOnPage(session: SignedIn, name: string, scopes: string[], extra: Record<string, string> = {}) {
  const page = await submit(session, KEYS_PATH, { name, scopes, ...extra });
  expect(page.status, page.html).toBe(201);
  const keyId = /href="\/dashboard\/integrations\/api-keys\/([0-9a-f-]{36})"/.exec(page.html)?.[1];
  expect(keyId).toBeDefined();
  return { page, keyId: keyId!, token: inputValue(page.html, "access-token"), rotateKey: inputValue(page.html, "rotate-key") };
}

/** The agency's audit entries, newest first, straight from D1. */
export async function auditEntries(agencyUuid: string) {
  const rows = await (await dbOf(agencyUuid)).prepare("SELECT actor_type, actor_id, action, target_type, target_id, detail FROM audit_log WHERE agency_id = ? ORDER BY created_at DESC, rowid DESC")
    .bind(agencyUuid)
    .all<{ actor_type: string; actor_id: string | null; action: string; target_type: string; target_id: string; detail: string | null }>();
  return rows.results.map((r) => ({ ...r, detail: r.detail === null ? null : JSON.parse(r.detail) }));
}

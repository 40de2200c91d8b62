import { dbOf, dbOfRecord } from "../helpers/shards";
import { afterEach, describe, expect, it } from "vitest";
import { dashboardRouter } from "@/dashboard/dashboard.index";
import { env } from "cloudflare:workers";
import { hashSecret } from "@/lib/crypto";
import { admin, api, call, expectError, uniqueIp } from "../helpers/http";
import { createMember, setupAgency } from "../helpers/factories";
import { createEndpoint, uniqueReceiver } from "../helpers/webhooks";
import { advanceClock, restoreClock, setClock } from "../helpers/clock";
import {
  auditEntries,
  browse,
  createKeyOnPage,
  csrfOf,
  DASHBOARD_CSP,
  escaped,
  issueLink,
  KEYS_PATH,
  SESSION_COOKIE,
  sessionCookieOf,
  signIn,
  signInMember,
  submit,
  TYPED_IN,
} from "../helpers/dashboard";

/** How a secret is stored: HMAC-SHA-256 with the deployment's TOKEN_PEPPER. */
const storedHash = (secret: string) => hashSecret(secret, env.TOKEN_PEPPER);

const UNKNOWN_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const ASK = "Ask the platform for a new sign-in link: links work once, for 15 minutes.";
const messages = {
  signedOut: `You are signed out of the agency dashboard. ${ASK}`,
  linkUnknown: `This sign-in link is not valid. ${ASK}`,
  linkSpent: `This sign-in link was already used or has expired. ${ASK}`,
  agentRole: "Only the agency&#39;s owner and admins can use the dashboard. Ask your agency&#39;s owner if you need access.",
  memberRemoved: "You are no longer a member of this agency, so you cannot use its dashboard.",
  csrfToken: escaped("This form has expired or did not come from this dashboard, so it was refused. Nothing was changed. Reload the page and try again."),
  csrfOrigin: "This form was sent from another site, so it was refused. Nothing was changed.",
};

const sessionsOf = async (memberUuid: string) =>
  (await (await dbOfRecord(memberUuid)).prepare("SELECT secret_hash, ended_at FROM dashboard_sessions WHERE member_id = ?").bind(memberUuid).all<{ secret_hash: string; ended_at: string | null }>())
    .results;

afterEach(() => restoreClock());

describe("POST /admin/v1/members/{agent_uuid}/dashboard-links", () => {
  it("issues a 15-minute link under the request's origin for an owner and for an admin", async () => {
    setClock("2026-11-21T14:00:00.000Z");
    const { agencyUuid } = await setupAgency();
    for (const role of ["owner", "admin"]) {
      const member = await createMember(agencyUuid, { role });
      const res = await admin("POST", `/members/${member.toUpperCase()}/dashboard-links`);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // The link's secret names its agency (32 hex), so opening it finds the agency's shard first.
      const secret = `${agencyUuid.replaceAll("-", "")}[A-Za-z0-9_-]{43}`;
      expect(res.body).toEqual({ success: true, url: expect.stringMatching(new RegExp(`^https://partner\\.test/dashboard/sign-in/${secret}$`)), expires_at: "2026-11-21T14:15:00.000Z" });
    }
  });

  it("stores only the link's hash, and records the issue as the operator's", async () => {
    const { agencyUuid } = await setupAgency();
    const member = await createMember(agencyUuid, { role: "admin", name: "Ada Admin" });
    const { url } = await issueLink(member);
    const token = url.split("/").pop()!;
    const db = await dbOf(agencyUuid);
    const stored = await db.prepare("SELECT token_hash FROM dashboard_links WHERE member_id = ?").bind(member).all<{ token_hash: string }>();
    expect(stored.results).toEqual([{ token_hash: await storedHash(token) }]);
    expect(JSON.stringify(await db.prepare("SELECT * FROM dashboard_links WHERE member_id = ?").bind(member).all())).not.toContain(token);
    expect((await auditEntries(agencyUuid))[0]).toMatchObject({
      actor_type: "operator",
      actor_id: null,
      action: "dashboard.link_issued",
      target_type: "member",
      target_id: member,
      detail: { name: "Ada Admin" },
    });
  });

  it("refuses an agent and a removed member with 409, and an unknown member with 404", async () => {
    const { agencyUuid, token } = await setupAgency();
    const agent = await createMember(agencyUuid, { role: "agent" });
    expectError(await admin("POST", `/members/${agent}/dashboard-links`), 409, "Only owners and admins can sign in to the dashboard; this team member's role is agent", "conflict");
    const removed = await createMember(agencyUuid, { role: "admin" });
    expect((await api("DELETE", `/users/${removed}`, { token })).status).toBe(200);
    expectError(await admin("POST", `/members/${removed}/dashboard-links`), 409, "This team member was removed from the agency and cannot sign in to the dashboard", "conflict");
    expectError(await admin("POST", `/members/${UNKNOWN_UUID}/dashboard-links`), 404, "Team member not found", "not_found");
    expectError(await admin("POST", "/members/not-a-uuid/dashboard-links"), 400, "agent_uuid must be a UUID", "validation_error");
    const issued = await (await dbOf(agencyUuid)).prepare("SELECT count(*) AS n FROM dashboard_links WHERE agency_id = ?").bind(agencyUuid).first<{ n: number }>();
    expect(issued?.n).toBe(0);
  });

  it("answers 401 without the operator token, and 429 once an IP has used up its 10 failures", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) {
      expectError(await call("POST", `/admin/v1/members/${owner}/dashboard-links`, { token: "wrong-admin-token", ip }), 401, "Invalid or missing token", "invalid_token");
    }
    const locked = await call("POST", `/admin/v1/members/${owner}/dashboard-links`, { token: "test-admin-token", ip });
    expectError(locked, 429, undefined, "rate_limited");
    expect(locked.headers.get("Retry-After")).toMatch(/^\d+$/);
    const links = await (await dbOf(agencyUuid)).prepare("SELECT count(*) AS n FROM dashboard_links WHERE member_id = ?").bind(owner).first<{ n: number }>();
    expect(links?.n).toBe(0);
  });
});

describe("GET /dashboard/sign-in/{token}", () => {
  it("starts a session once: a __Host- cookie (HttpOnly, Secure, SameSite=Strict, 12 h), a 303 to the keys page, and the link is spent", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const { path } = await issueLink(owner);
    const first = await browse("GET", path, TYPED_IN);
    expect(first.status).toBe(303);
    expect(first.location).toBe(KEYS_PATH);
    const setCookie = first.headers.get("Set-Cookie")!;
    const attributes = setCookie.split(";").map((part) => part.trim());
    expect(attributes[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=${agencyUuid.replaceAll("-", "")}[A-Za-z0-9_-]{43}$`));
    expect(attributes.slice(1).sort()).toEqual(["HttpOnly", "Max-Age=43200", "Path=/", "SameSite=Strict", "Secure"]);
    expect(first.headers.get("Referrer-Policy")).toBe("no-referrer");

    // The session is stored hashed, and the cookie opens the dashboard.
    const secret = sessionCookieOf(first);
    expect(await sessionsOf(owner)).toEqual([{ secret_hash: await storedHash(secret), ended_at: null }]);
    expect((await browse("GET", KEYS_PATH, { cookie: secret })).status).toBe(200);

    const again = await browse("GET", path, TYPED_IN);
    expect(again.status).toBe(410);
    expect(again.html).toContain(messages.linkSpent);
    expect(again.headers.get("Set-Cookie")).toBeNull();
    expect(await sessionsOf(owner)).toHaveLength(1);
  });

  it("answers HEAD with 200 and no cookie without spending the link (a link checker's probe)", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const { path } = await issueLink(owner);
    const head = await browse("HEAD", path);
    expect(head.status).toBe(200);
    expect(head.headers.get("Set-Cookie")).toBeNull();
    expect(await sessionsOf(owner)).toEqual([]);
    const opened = await browse("GET", path, TYPED_IN);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(KEYS_PATH);
    expect((await browse("GET", KEYS_PATH, { cookie: sessionCookieOf(opened) })).status).toBe(200);
  });

  it("starts exactly one session when the link is opened many times at once", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const { path } = await issueLink(owner);
    const pages = await Promise.all(Array.from({ length: 8 }, () => browse("GET", path, TYPED_IN)));
    expect(pages.map((p) => p.status).sort()).toEqual([303, 410, 410, 410, 410, 410, 410, 410]);
    expect(pages.filter((p) => p.headers.get("Set-Cookie"))).toHaveLength(1);
    expect(await sessionsOf(owner)).toHaveLength(1);
  });

  it("works until its 15 minutes are over, then answers 410", async () => {
    setClock("2026-11-21T09:00:00.000Z");
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const early = await issueLink(owner);
    const late = await issueLink(owner);
    advanceClock(15 * MINUTE - 1);
    expect((await browse("GET", early.path, TYPED_IN)).status).toBe(303);
    advanceClock(1);
    const expired = await browse("GET", late.path, TYPED_IN);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain(messages.linkSpent);
    expect(await sessionsOf(owner)).toHaveLength(1);
  });

  it("answers 404 for a link that was never issued, whatever its shape", async () => {
    for (const token of ["A".repeat(43), "short", "x".repeat(500)]) {
      const page = await browse("GET", `/dashboard/sign-in/${token}`);
      expect(page.status).toBe(404);
      expect(page.html).toContain(messages.linkUnknown);
      expect(page.headers.get("Set-Cookie")).toBeNull();
    }
  });

  it("answers 403 for a member who became an agent after the link was issued, and for one who was removed", async () => {
    const { agencyUuid, token } = await setupAgency();
    const demoted = await createMember(agencyUuid, { role: "admin" });
    const demotedLink = await issueLink(demoted);
    expect((await api("PATCH", `/users/${demoted}/role`, { token, body: { role: "agent" } })).status).toBe(200);
    const agentPage = await browse("GET", demotedLink.path);
    expect(agentPage.status).toBe(403);
    expect(agentPage.html).toContain(messages.agentRole);

    const removed = await createMember(agencyUuid, { role: "admin" });
    const removedLink = await issueLink(removed);
    expect((await api("DELETE", `/users/${removed}`, { token })).status).toBe(200);
    const removedPage = await browse("GET", removedLink.path);
    expect(removedPage.status).toBe(403);
    expect(removedPage.html).toContain(messages.memberRemoved);

    for (const page of [agentPage, removedPage]) expect(page.headers.get("Set-Cookie")).toBeNull();
    expect([...(await sessionsOf(demoted)), ...(await sessionsOf(removed))]).toEqual([]);
  });

  it("reached from another site, moves on by itself rather than by a redirect, which would drop the SameSite=Strict cookie", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const { path } = await issueLink(owner);
    const page = await browse("GET", path, { headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<meta http-equiv="refresh" content="0; url=${KEYS_PATH}"/>`);
    expect(page.html).toContain(`<a href="${KEYS_PATH}">Continue to API keys</a>`);
    expect((await browse("GET", KEYS_PATH, { cookie: sessionCookieOf(page) })).status).toBe(200);
  });

  it("moves on by itself too when the browser sends no Sec-Fetch-Site, and redirects only a same-site or typed-in request", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const hop = await browse("GET", (await issueLink(owner)).path);
    expect(hop.status).toBe(200);
    expect(hop.location).toBeNull();
    expect(hop.html).toContain(`<meta http-equiv="refresh" content="0; url=${KEYS_PATH}"/>`);
    expect((await browse("GET", KEYS_PATH, { cookie: sessionCookieOf(hop) })).status).toBe(200);
    for (const site of ["same-origin", "same-site", "none"]) {
      const page = await browse("GET", (await issueLink(owner)).path, { headers: { "Sec-Fetch-Site": site } });
      expect(page.status, site).toBe(303);
      expect(page.location).toBe(KEYS_PATH);
    }
  });

  it("records the sign-in in the audit log with the member", async () => {
    const session = await signIn({ role: "admin" });
    const entries = await auditEntries(session.agencyUuid);
    expect(entries[0]).toMatchObject({ actor_type: "member", actor_id: session.memberUuid, action: "dashboard.signed_in" });
  });
});

describe("dashboard sessions", () => {
  it("sends a visitor without a session, or with a bad cookie, to the signed-out page", async () => {
    for (const cookie of [undefined, "A".repeat(43), "garbage"]) {
      for (const path of [KEYS_PATH, "/dashboard", "/dashboard/audit-log", "/dashboard/integrations/webhooks", `${KEYS_PATH}/${UNKNOWN_UUID}`]) {
        const page = await browse("GET", path, { cookie });
        expect(page.status, path).toBe(303);
        expect(page.location).toBe("/dashboard/signed-out");
      }
    }
    const signedOut = await browse("GET", "/dashboard/signed-out");
    expect(signedOut.status).toBe(200);
    expect(signedOut.html).toContain(messages.signedOut);
  });

  it("lasts 12 hours", async () => {
    setClock("2026-11-21T08:00:00.000Z");
    const session = await signIn();
    advanceClock(12 * HOUR - 1000);
    expect((await browse("GET", KEYS_PATH, { cookie: session.cookie })).status).toBe(200);
    advanceClock(1000);
    const expired = await browse("GET", KEYS_PATH, { cookie: session.cookie });
    expect(expired.status).toBe(303);
    expect(expired.location).toBe("/dashboard/signed-out");
    // The dead cookie is dropped.
    expect(expired.headers.get("Set-Cookie")).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict$`));
  });

  it("ends at once for a member who is removed, and for one demoted to agent", async () => {
    const removed = await signIn({ role: "admin" });
    expect((await api("DELETE", `/users/${removed.memberUuid}`, { token: removed.token })).status).toBe(200);
    expect((await browse("GET", KEYS_PATH, { cookie: removed.cookie })).location).toBe("/dashboard/signed-out");
    // A form posted with the ended session changes nothing.
    const post = await submit(removed, KEYS_PATH, { name: "after removal", scopes: ["contacts"] });
    expect(post.status).toBe(303);
    expect(post.location).toBe("/dashboard/signed-out");
    const keys = await admin("GET", `/agencies/${removed.agencyUuid}/keys`);
    expect(keys.body.keys.map((k: { name: string }) => k.name)).not.toContain("after removal");

    const demoted = await signIn({ role: "admin" });
    expect((await api("PATCH", `/users/${demoted.memberUuid}/role`, { token: demoted.token, body: { role: "agent" } })).status).toBe(200);
    expect((await browse("GET", KEYS_PATH, { cookie: demoted.cookie })).location).toBe("/dashboard/signed-out");
  });

  it("signs out with a POST: the session ends, the cookie is dropped, and it is recorded", async () => {
    const session = await signIn();
    const out = await submit(session, "/dashboard/sign-out");
    expect(out.status).toBe(303);
    expect(out.location).toBe("/dashboard/signed-out");
    expect(out.headers.get("Set-Cookie")).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0;`));
    expect((await browse("GET", KEYS_PATH, { cookie: session.cookie })).location).toBe("/dashboard/signed-out");
    const [stored] = await sessionsOf(session.memberUuid);
    expect(stored?.ended_at).toEqual(expect.any(String));
    expect((await auditEntries(session.agencyUuid))[0]).toMatchObject({ actor_type: "member", actor_id: session.memberUuid, action: "dashboard.signed_out" });
  });

  it("ends the session a browser still holds when it signs in again with a new link", async () => {
    const session = await signIn();
    const { path } = await issueLink(session.memberUuid);
    const opened = await browse("GET", path, { cookie: session.cookie, ...TYPED_IN });
    expect(opened.status).toBe(303);
    const fresh = sessionCookieOf(opened);
    expect(fresh).not.toBe(session.cookie);
    const old = await browse("GET", KEYS_PATH, { cookie: session.cookie });
    expect(old.status).toBe(303);
    expect(old.location).toBe("/dashboard/signed-out");
    expect((await browse("GET", KEYS_PATH, { cookie: fresh })).status).toBe(200);
    const stored = await sessionsOf(session.memberUuid);
    const endedAt = (secret: string) => storedHash(secret).then((hash) => stored.find((s) => s.secret_hash === hash)?.ended_at);
    expect(await endedAt(session.cookie)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await endedAt(fresh)).toBeNull();
    expect((await auditEntries(session.agencyUuid)).slice(0, 2).map((e) => [e.action, e.actor_id])).toEqual([
      ["dashboard.signed_out", session.memberUuid],
      ["dashboard.signed_in", session.memberUuid],
    ]);
  });

  it("keeps one member's sessions apart: signing out of one leaves another open", async () => {
    const session = await signIn();
    const second = await signInMember(session.memberUuid);
    expect((await submit(session, "/dashboard/sign-out")).status).toBe(303);
    expect((await browse("GET", KEYS_PATH, { cookie: second })).status).toBe(200);
  });
});

describe("dashboard CSRF protection", () => {
  it("refuses a form without the token, with a wrong one, or with another session's, and changes nothing", async () => {
    const session = await signIn();
    const other = await signIn();
    const attempts = [
      await submit(session, KEYS_PATH, { name: "no token", scopes: ["contacts"] }, { csrf: null }),
      await submit(session, KEYS_PATH, { name: "wrong token", scopes: ["contacts"] }, { csrf: "A".repeat(43) }),
      await submit(session, KEYS_PATH, { name: "other token", scopes: ["contacts"] }, { csrf: other.csrf }),
      await submit(session, "/dashboard/sign-out", {}, { csrf: "" }),
    ];
    for (const page of attempts) {
      expect(page.status).toBe(403);
      expect(page.html).toContain(messages.csrfToken);
      expect(page.headers.get("Content-Security-Policy")).toBe(DASHBOARD_CSP);
    }
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys).toHaveLength(1);
    expect((await browse("GET", KEYS_PATH, { cookie: session.cookie })).status).toBe(200);
  });

  it("refuses a form posted from another origin even with the right token, and accepts one without an Origin header", async () => {
    const session = await signIn();
    for (const origin of ["https://evil.example", "null", "http://partner.test", "https://partner.test:8443"]) {
      const page = await submit(session, KEYS_PATH, { name: "cross-site", scopes: ["contacts"] }, { origin });
      expect(page.status, origin).toBe(403);
      expect(page.html).toContain(messages.csrfOrigin);
    }
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys).toHaveLength(1);
    expect((await submit(session, KEYS_PATH, { name: "no origin header", scopes: ["contacts"] }, { origin: null })).status).toBe(201);
  });

  it("puts the session's token in every form of every page", async () => {
    const session = await signIn();
    for (const path of [KEYS_PATH, "/dashboard/integrations/webhooks", "/dashboard/audit-log"]) {
      const { html } = await browse("GET", path, { cookie: session.cookie });
      const forms = html.match(/<form method="post"/g) ?? [];
      const tokens = html.match(new RegExp(`name="_csrf" value="${session.csrf}"`, "g")) ?? [];
      expect(forms.length, path).toBeGreaterThan(0);
      expect(tokens.length, path).toBe(forms.length);
      expect(csrfOf(html)).toBe(session.csrf);
    }
  });
});

describe("dashboard response headers", () => {
  it("sends the strict CSP, no-store and a same-origin referrer policy on pages, redirects and refusals, and no CORS headers", async () => {
    const session = await signIn();
    const headers = { Origin: "https://app.example.com" };
    const responses = [
      await browse("GET", KEYS_PATH, { cookie: session.cookie, headers }),
      await browse("GET", KEYS_PATH, { headers }),
      await browse("GET", "/dashboard/signed-out", { headers }),
      await browse("GET", `/dashboard/sign-in/${"B".repeat(43)}`, { headers }),
      await browse("GET", `${KEYS_PATH}/${UNKNOWN_UUID}`, { cookie: session.cookie, headers }),
      await browse("OPTIONS", KEYS_PATH, { headers: { ...headers, "Access-Control-Request-Method": "POST" } }),
    ];
    for (const [i, res] of responses.entries()) {
      expect(res.headers.get("Content-Security-Policy")).toBe(DASHBOARD_CSP);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      // The sign-in link's responses send no Referer at all (their URL is the secret).
      expect(res.headers.get("Referrer-Policy")).toBe(i === 3 ? "no-referrer" : "same-origin");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    }
    expect(responses[0]!.headers.get("Content-Type")).toBe("text/html; charset=UTF-8");
  });

  // Found by the browser tests: under `Referrer-Policy: no-referrer` a browser sends `Origin: null`
  // on a same-origin form post, which the Origin check refuses, so no form of the dashboard worked
  // in a browser. A page with a form must let its own origin through.
  it("lets a browser send this origin on every page with a form (same-origin referrer policy), and none from the sign-in link", async () => {
    const session = await signIn();
    const created = await submit(session, KEYS_PATH, { name: "policy", scopes: ["contacts"] });
    expect(created.status).toBe(201);
    const keyId = /<a href="\/dashboard\/integrations\/api-keys\/([0-9a-f-]{36})">Go to the key<\/a>/.exec(created.html)?.[1];
    expect(keyId).toBeDefined();
    const pages = [
      created,
      await browse("GET", KEYS_PATH, { cookie: session.cookie }),
      await browse("GET", `${KEYS_PATH}/${keyId}`, { cookie: session.cookie }),
      await browse("GET", `${KEYS_PATH}/${keyId}/revoke`, { cookie: session.cookie }),
      await browse("GET", "/dashboard/integrations/webhooks", { cookie: session.cookie }),
      await browse("GET", "/dashboard/audit-log", { cookie: session.cookie }),
    ];
    for (const page of pages) {
      expect(page.html).toContain('<form method="post"');
      expect(page.headers.get("Referrer-Policy")).toBe("same-origin");
    }
    const { path } = await issueLink(session.memberUuid);
    expect((await browse("GET", path)).headers.get("Referrer-Policy")).toBe("no-referrer");
    expect((await browse("GET", path, { headers: { "Sec-Fetch-Site": "cross-site" } })).headers.get("Referrer-Policy")).toBe("no-referrer");
  });

  it("has no inline script or style, no inline event handler, and a label for every control", async () => {
    const session = await signIn();
    await submit(session, KEYS_PATH, { name: "labelled", scopes: ["contacts"] });
    for (const path of [KEYS_PATH, "/dashboard/integrations/webhooks", "/dashboard/audit-log", "/dashboard/signed-out"]) {
      const { html } = await browse("GET", path, { cookie: session.cookie });
      expect(html, path).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(html, path).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
      expect(html.startsWith("<!doctype html><html lang=\"en\">"), path).toBe(true);
      for (const [, id] of html.matchAll(/<input(?![^>]*type="hidden")[^>]*\sid="([^"]+)"/g)) {
        expect(html, `label for #${id} on ${path}`).toContain(`<label for="${id}">`);
      }
      expect(html.match(/<input(?![^>]*type="hidden")(?![^>]*\sid=)[^>]*>/g), `inputs without an id on ${path}`).toBeNull();
    }
  });

  // The files themselves are Workers static assets (public/dashboard/assets/), served before the
  // Worker runs; this pool never reaches them, the browser tests do.
  it("loads its one script and one stylesheet from this origin", async () => {
    const { html } = await browse("GET", "/dashboard/signed-out");
    expect([...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual(['<script src="/dashboard/assets/copy.js" defer="">']);
    expect([...html.matchAll(/<link\b[^>]*>/g)].map(([tag]) => tag)).toEqual(['<link rel="stylesheet" href="/dashboard/assets/dashboard.css"/>']);
  });

  it("answers a signed-in member's unknown page with the 404 page", async () => {
    const session = await signIn();
    const page = await browse("GET", "/dashboard/nope", { cookie: session.cookie });
    expect(page.status).toBe(404);
    expect(page.html).toContain("There is nothing here. It may belong to another agency, or it was removed.");
  });
});

describe("CSRF refusal on every dashboard form", () => {
  const forms = (keyId: string, endpointId: string): [string, Record<string, string | string[]>][] => [
    ["/dashboard/sign-out", {}],
    [KEYS_PATH, { name: "Sneaky", scopes: ["*"] }],
    [`${KEYS_PATH}/${keyId}`, { name: "Renamed", scopes: ["*"] }],
    [`${KEYS_PATH}/${keyId}/revoke`, {}],
    [`${KEYS_PATH}/${keyId}/rotate-secrets`, {}],
    [`${KEYS_PATH}/${keyId}/regenerate-rotate-key`, {}],
    ["/dashboard/integrations/webhooks", { url: uniqueReceiver(), events: ["*"] }],
    [`/dashboard/integrations/webhooks/${endpointId}/enable`, {}],
    [`/dashboard/integrations/webhooks/${endpointId}/disable`, {}],
    [`/dashboard/integrations/webhooks/${endpointId}/test`, {}],
    [`/dashboard/integrations/webhooks/${endpointId}/rotate-secret`, {}],
    // A grant id's shape: the form is refused before anything looks it up.
    [`/dashboard/integrations/apps/${endpointId === ":id" ? ":id" : "AAAAAAAAAAAAAAAA"}/revoke`, {}],
    ["/dashboard/oauth/authorize", { handle: "any", decision: "approve" }],
  ];

  it("lists every POST route the dashboard has", () => {
    const routed = dashboardRouter.routes.filter((r) => r.method === "POST" && !r.path.endsWith("*")).map((r) => r.path.replace(/:(\w+)/g, ":id"));
    const listed = forms(":id", ":id").map(([path]) => path.replace(/^\/dashboard/, ""));
    expect(listed.sort()).toEqual([...new Set(routed)].sort());
  });

  it("refuses each form sent without the CSRF token with 403, changing nothing", async () => {
    const session = await signIn();
    const { keyId, token } = await createKeyOnPage(session, "Kept", ["contacts"]);
    const { endpoint } = await createEndpoint(session.token, { description: "Kept" });
    const state = async () => ({
      audit: await auditEntries(session.agencyUuid),
      keys: (await admin("GET", `/agencies/${session.agencyUuid}/keys`)).body.keys,
      endpoints: (await api("GET", "/webhook-endpoints", { token: session.token })).body.webhook_endpoints,
      deliveries: (await api("GET", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}/deliveries`, { token: session.token })).body,
      sessions: await sessionsOf(session.memberUuid),
    });
    const before = await state();
    for (const [path, fields] of forms(keyId, endpoint.webhook_endpoint_uuid as string)) {
      const page = await submit(session, path, fields, { csrf: null });
      expect(page.status, path).toBe(403);
      expect(page.html, path).toContain(messages.csrfToken);
    }
    expect(await state()).toEqual(before);
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    expect((await browse("GET", KEYS_PATH, { cookie: session.cookie })).status).toBe(200);
  });
});

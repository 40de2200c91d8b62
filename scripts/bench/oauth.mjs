// A Partner API request with a connected app's OAuth token against the same request with an
// API key (issue 27), measured by `npm run bench` side by side (A B, A B, ...) on one agency:
// `GET /contacts?limit=20`, and each one's D1 rows read and round trips from the bench headers.
// The token is obtained the way an app gets one: registration, an admin's approval on the
// consent page (signed in with a dashboard link), the code exchange with PKCE.
import { createHash, randomBytes } from "node:crypto";
import { median, metrics, sideBySide } from "./measure.mjs";

const PAGE = 20;

/** Cookies set by the answers, sent back on the next request, as a browser would. */
class Jar {
  cookies = new Map();
  take(res) {
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

async function json(res, what) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** An OAuth access token of `agency`, for the scope `contacts`, with its rate limits multiplied like the bench keys'. */
export async function connectBenchApp(base, agency, { adminToken, multiplier }) {
  const admin = (method, path, body) =>
    fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      body: body && JSON.stringify(body),
    }).then((res) => json(res, `${method} /admin/v1${path}`));
  const suffix = randomBytes(4).toString("hex");
  const { member } = await admin("POST", `/agencies/${agency.agencyId}/members`, { name: "Bench Admin", email: `admin-${suffix}@bench.example`, role: "admin" });
  const { url } = await admin("POST", `/members/${member.agent_uuid}/dashboard-links`);

  const browser = new Jar();
  const visit = async (target, init = {}) => {
    const res = await fetch(new URL(target, base), { redirect: "manual", ...init, headers: { ...init.headers, Cookie: browser.header() } });
    browser.take(res);
    return res;
  };
  const signedIn = await visit(url, { headers: { "Sec-Fetch-Site": "none" } });
  if (signedIn.status !== 303) throw new Error(`signing in with the dashboard link: HTTP ${signedIn.status}`);

  const redirectUri = "http://localhost:3000/callback";
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Bench App", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  }).then((res) => json(res, "POST /oauth/register"));
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: redirectUri,
    scope: "contacts",
    state: "bench",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const page = await visit(`/dashboard/oauth/authorize?${query}`);
  const html = await page.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!handle || !csrf) throw new Error(`the consent page (HTTP ${page.status}) has no form: ${html.slice(0, 300)}`);
  const approved = await visit("/dashboard/oauth/authorize", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ handle, _csrf: csrf, decision: "approve" }).toString(),
  });
  const code = approved.headers.get("Location") && new URL(approved.headers.get("Location")).searchParams.get("code");
  if (!code) throw new Error(`approving: HTTP ${approved.status}, no code`);
  const tokens = await fetch(`${base}/oauth/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "authorization_code", client_id: registered.client_id, code, code_verifier: verifier, redirect_uri: redirectUri }),
  }).then((res) => json(res, "POST /oauth/token"));
  const grantId = tokens.access_token.split(":")[1];
  await admin("PATCH", `/agencies/${agency.agencyId}/grants/${grantId}`, { rate_limit_multiplier: multiplier });
  return tokens.access_token;
}

const contactsPage = (body) => (body?.contacts?.length === PAGE ? undefined : `expected ${PAGE} contacts: ${JSON.stringify(body).slice(0, 200)}`);

export async function measureOAuth(base, agency, { adminToken, multiplier, rounds, warmup, seconds, connections, log }) {
  const token = await connectBenchApp(base, agency, { adminToken, multiplier });
  const scenario = (name, bearer) => ({ name, method: "GET", path: `/api/v2/contacts?limit=${PAGE}`, headers: { Authorization: `Bearer ${bearer}` }, check: contactsPage });
  const sides = [
    { key: "key", base, scenario: scenario(`GET /contacts?limit=${PAGE} (API key)`, agency.token) },
    { key: "oauth", base, scenario: scenario(`GET /contacts?limit=${PAGE} (OAuth token)`, token) },
  ];
  const measured = {};
  for (const side of sides) measured[side.key] = await metrics(base, side.scenario);
  log(`OAuth: GET /contacts with an app's token against an API key, ${rounds} rounds side by side`);
  const { each, bySide } = await sideBySide(sides, { rounds, warmup, seconds, connections, log });
  return {
    key: { ...bySide.key, ...measured.key },
    oauth: { ...bySide.oauth, ...measured.oauth },
    // The median of each round's ratio: a round's two runs share the machine's state of the moment.
    ratio: +median(each.map((round) => round.oauth.rps / Math.max(round.key.rps, 1))).toFixed(2),
  };
}

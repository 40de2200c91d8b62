// The hand-written reference of `npm run bench`: exactly the storage work of an authenticated
// `GET /api/v2/contacts?limit=20` of the real Worker, with no framework, no validation library
// and no ORM, so the bench can say how close the real Worker comes to it.
//
// Per request: parse the bearer token, take the key id from it and hash it (as
// src/lib/auth/tokens.ts and src/lib/crypto.ts do), make one RPC call to the key's Durable
// Object (cached key row + sliding-window rate limit, as src/durable-objects/access-gate.ts),
// then send one D1 batch in a session: the page of live contacts (listContacts' SQL shape)
// and the maintained total from record_counts. Anything else is 404.
import { DurableObject } from "cloudflare:workers";

const encoder = new TextEncoder();
const toHex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");

const MAX_TOKEN_LENGTH = 256;
// src/lib/rate-limits.ts: GET routes get 60 a minute, scaled by the key's multiplier.
const RULE = { bucket: "GET /contacts", limit: 60, windowSeconds: 60 };
const BUCKET_KEY = `bucket:${RULE.bucket}`;
const SCOPE = "contacts";

function bearerToken(header) {
  if (!header) return null;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return token && token.length <= MAX_TOKEN_LENGTH ? token : null;
}

/** `<prefix>_<32 hex key id><43 base64url>` (or `<prefix>cal_...`): the key id as a uuid. */
function keyIdOf(token, prefix) {
  if (!token.startsWith(prefix)) return null;
  const hex = /^(?:_|cal_)([0-9a-f]{32})[A-Za-z0-9_-]{43}$/.exec(token.slice(prefix.length))?.[1];
  if (!hex) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// HMAC-SHA256 with the pepper when one is configured, else SHA-256; the HMAC key is imported
// once per isolate.
let hmacKey;
async function hashToken(token, pepper) {
  if (!pepper) return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(token)));
  hmacKey ??= crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", await hmacKey, encoder.encode(token)));
}

/** One per API key: the key's row, read from D1 on first use, and its sliding window. */
export class KeyGate extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.key = undefined;
    this.counts = [];
    void ctx.blockConcurrencyWhile(async () => {
      this.counts = (await ctx.storage.get(BUCKET_KEY)) ?? [];
    });
  }

  async admit(keyId, tokenHash) {
    if (this.key === undefined) {
      const row = await this.env.DB.prepare(
        "SELECT agency_id, access_hash, scopes, expires_at, revoked_at, rate_limit_multiplier FROM api_keys WHERE id = ?",
      )
        .bind(keyId)
        .first();
      this.key = row ? { ...row, scopes: JSON.parse(row.scopes) } : null;
    }
    const key = this.key;
    if (!key || key.revoked_at || key.access_hash !== tokenHash) return { status: 401 };
    if (key.expires_at && key.expires_at <= new Date().toISOString()) return { status: 401 };

    // Sliding window at one-second resolution, as AccessGate.consume.
    const limit = Math.max(1, Math.floor(RULE.limit * key.rate_limit_multiplier));
    const now = Date.now();
    const second = Math.floor(now / 1000);
    const counts = this.counts.filter(([s]) => s > second - RULE.windowSeconds);
    const used = counts.reduce((sum, [, n]) => sum + n, 0);
    if (used >= limit) {
      this.counts = counts;
      return { status: 429, limit, remaining: 0, reset: Math.max(1, Math.ceil(((counts[0][0] + RULE.windowSeconds) * 1000 - now) / 1000)) };
    }
    const last = counts[counts.length - 1];
    if (last && last[0] === second) last[1]++;
    else counts.push([second, 1]);
    this.counts = counts;
    // Written behind, as the real gate does, so a restarted object remembers the window.
    void this.ctx.storage.put(BUCKET_KEY, counts, { allowUnconfirmed: true });
    const decision = {
      limit,
      remaining: limit - used - 1,
      reset: Math.max(1, Math.ceil(((counts[0][0] + RULE.windowSeconds) * 1000 - now) / 1000)),
    };
    if (!key.scopes.includes("*") && !key.scopes.includes(SCOPE)) return { status: 403, ...decision };
    return { status: 200, agencyId: key.agency_id, ...decision };
  }
}

const json = (status, body, headers = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

const failure = (status, code, headers) => json(status, { success: false, error: code, code }, headers);

/** An integer query parameter in [min, max], its default when absent, NaN when invalid. */
function intParam(url, name, min, max, fallback) {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,7}$/.test(raw)) return Number.NaN;
  const n = Number(raw);
  return n >= min && n <= max ? n : Number.NaN;
}

const PAGE_SQL =
  'SELECT "id", "agency_id", "first_name", "last_name", "email", "phone", "tags", "source", "path_id", "custom_fields", ' +
  '"external_id", "sms_opt_out", "created_at", "updated_at", "deleted_at" FROM "contacts" ' +
  'WHERE ("contacts"."agency_id" = ? AND "contacts"."deleted_at" IS NULL) ' +
  'ORDER BY "contacts"."created_at" DESC, "contacts"."id" DESC LIMIT ? OFFSET ?';
const TOTAL_SQL = 'SELECT "count" FROM "record_counts" WHERE ("record_counts"."agency_id" = ? AND "record_counts"."kind" = ?)';

const toPublicContact = (r) => ({
  contact_uuid: r.id,
  first_name: r.first_name,
  last_name: r.last_name,
  email: r.email,
  phone: r.phone,
  tags: JSON.parse(r.tags),
  source: r.source,
  path_uuid: r.path_id,
  custom_fields: JSON.parse(r.custom_fields),
  external_id: r.external_id,
  sms_opt_out: r.sms_opt_out === 1,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

// The next page's cursor, as src/lib/cursor.ts seals it: the page, the total and the last row's
// sort keys, base64url, with a MAC over the list's binding (HMAC with the pepper, else SHA-256).
async function nextCursor(page, total, last, agencyId, pepper) {
  const payload = globalThis.btoa(JSON.stringify([page, total, last.created_at, last.id])).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const text = `cursor\n/api/v2/contacts\n${agencyId}\n[]\n[["deleted",false]]\n${payload}`;
  const mac = pepper
    ? toHex(await crypto.subtle.sign("HMAC", await (hmacKey ??= crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])), encoder.encode(text)))
    : toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return `${payload}.${mac.slice(0, 32)}`;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method !== "GET" || url.pathname !== "/contacts") return failure(404, "not_found");

    const token = bearerToken(request.headers.get("Authorization"));
    const keyId = token ? keyIdOf(token, env.TOKEN_PREFIX || "pa") : null;
    if (!token || !keyId) return failure(401, "invalid_token");
    const gate = env.KEY_GATE.get(env.KEY_GATE.idFromName(`key:${keyId}`));
    const admission = await gate.admit(keyId, await hashToken(token, env.TOKEN_PEPPER));
    if (admission.status === 401) return failure(401, "invalid_token");
    const headers = {
      "RateLimit-Limit": String(admission.limit),
      "RateLimit-Remaining": String(admission.remaining),
      "RateLimit-Reset": String(admission.reset),
      "RateLimit-Policy": `${admission.limit};w=${RULE.windowSeconds}`,
    };
    if (admission.status === 429) return failure(429, "rate_limited", { ...headers, "Retry-After": String(admission.reset) });
    if (admission.status === 403) return failure(403, "insufficient_scope", headers);

    const limit = intParam(url, "limit", 1, 100, 20);
    const page = intParam(url, "page", 1, 1_000_000, 1);
    if (Number.isNaN(limit) || Number.isNaN(page)) return failure(400, "validation_error", headers);

    const session = env.DB.withSession("first-unconstrained");
    const [rows, totals] = await session.batch([
      // One row more than the page: it tells whether a next page exists.
      session.prepare(PAGE_SQL).bind(admission.agencyId, limit + 1, (page - 1) * limit),
      session.prepare(TOTAL_SQL).bind(admission.agencyId, "contacts.live"),
    ]);
    // The bench's metrics (as BENCH_METRICS in the real Worker): read from the batch's own
    // result metadata, so they cost nothing extra.
    if (request.headers.get("X-Bench-Rows-Read") === "1") {
      headers["X-Bench-Rows-Read"] = String((rows.meta?.rows_read ?? 0) + (totals.meta?.rows_read ?? 0));
      headers["X-Bench-D1-Round-Trips"] = "1";
      headers["X-Bench-D1-Statements"] = "2";
    }
    const total = totals.results[0]?.count ?? 0;
    const shown = rows.results.slice(0, limit);
    const next_cursor = rows.results.length > limit ? await nextCursor(page + 1, total, shown[shown.length - 1], admission.agencyId, env.TOKEN_PEPPER) : null;
    return json(200, { success: true, contacts: shown.map(toPublicContact), pagination: { page, limit, total, next_cursor } }, headers);
  },
};

import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { messages } from "@/lib/errors";
import { MAX_JSON_DEPTH } from "@/lib/json-depth";
import { MAX_BODY_BYTES } from "@/middleware/request-limits";
import { advanceClock, restoreClock, setClock } from "../helpers/clock";
import { setupAgency } from "../helpers/factories";
import { ADMIN_TOKEN, api, BASE, call, expectError, uniqueIp, type ApiResponse } from "../helpers/http";

const encoder = new TextEncoder();

/** A valid JSON object padded with trailing whitespace (which JSON allows) to exactly `size` bytes. */
function paddedJson(value: object, size: number): Uint8Array {
  const json = encoder.encode(JSON.stringify(value));
  const bytes = new Uint8Array(size).fill(0x20);
  bytes.set(json);
  return bytes;
}

/** A body without a length: the runtime sends it chunked. Counts the bytes the server pulled. */
function streamOf(bytes: Uint8Array, chunkSize = 64 * 1024) {
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
  return { stream, pulled: () => Math.min(offset, bytes.length) };
}

async function send(
  method: string,
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init = { method, headers: { "Content-Type": "application/json", ...headers }, body, duplex: "half" } as RequestInit;
  const response = await exports.default.fetch(`${BASE}${path}`, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Left as text: expectError reports it.
  }
  return { status: response.status, headers: response.headers, body: parsed as Record<string, unknown> };
}

const contactCount = async (token: string) => {
  const res = await api("GET", "/contacts", { token });
  expect(res.status).toBe(200);
  return res.body.pagination.total as number;
};

const CONTACT = { first_name: "Ann", last_name: "Lee" };

describe("request body size limit", () => {
  it("refuses a body of 1 MiB + 1 byte with a Content-Length, and writes nothing", async () => {
    const { token } = await setupAgency();
    const body = paddedJson(CONTACT, MAX_BODY_BYTES + 1);
    const res = await send("POST", "/api/v2/contacts", body, { Authorization: `Bearer ${token}`, "Content-Length": String(body.length) });
    expectError(res, 413, messages.payloadTooLarge, "payload_too_large");
    expect(res.body).toEqual({ success: false, error: "Request body must not exceed 1 MiB (1,048,576 bytes)", code: "payload_too_large" });
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    expect(await contactCount(token)).toBe(0);
  });

  it("decides from Content-Length before reading: answers 413 though no byte of the body was sent", async () => {
    const { token } = await setupAgency();
    // A declared length with a body that never arrives: a server that read before deciding would hang.
    const { readable } = new FixedLengthStream(MAX_BODY_BYTES + 1);
    const res = await send("POST", "/api/v2/contacts", readable, { Authorization: `Bearer ${token}` });
    expectError(res, 413, messages.payloadTooLarge, "payload_too_large");
    expect(await contactCount(token)).toBe(0);
  });

  it("refuses a streamed body without a length once it passes 1 MiB, and writes nothing", async () => {
    const { token } = await setupAgency();
    const { stream } = streamOf(paddedJson(CONTACT, MAX_BODY_BYTES + 1));
    const res = await send("POST", "/api/v2/contacts", stream, { Authorization: `Bearer ${token}` });
    expectError(res, 413, messages.payloadTooLarge, "payload_too_large");
    expect(await contactCount(token)).toBe(0);
  });

  it("stops reading a streamed body soon after the limit instead of reading it all", async () => {
    const { token } = await setupAgency();
    const huge = paddedJson(CONTACT, 64 * MAX_BODY_BYTES);
    const { stream, pulled } = streamOf(huge);
    const res = await send("POST", "/api/v2/contacts", stream, { Authorization: `Bearer ${token}` });
    expectError(res, 413, messages.payloadTooLarge, "payload_too_large");
    expect(pulled()).toBeLessThan(8 * MAX_BODY_BYTES);
    expect(await contactCount(token)).toBe(0);
  });

  it("accepts a body of exactly 1 MiB, with a Content-Length and streamed", async () => {
    const { token } = await setupAgency();
    const body = paddedJson(CONTACT, MAX_BODY_BYTES);
    const sized = await send("POST", "/api/v2/contacts", body, { Authorization: `Bearer ${token}` });
    expect(sized.status, JSON.stringify(sized.body)).toBe(201);
    const streamed = await send("POST", "/api/v2/contacts", streamOf(paddedJson({ first_name: "Bo", last_name: "Ray" }, MAX_BODY_BYTES)).stream, {
      Authorization: `Bearer ${token}`,
    });
    expect(streamed.status, JSON.stringify(streamed.body)).toBe(201);
    expect(await contactCount(token)).toBe(2);
  });

  it("refuses an oversized body on the operator API too, before authentication, and writes nothing", async () => {
    const name = `Too big ${crypto.randomUUID()}`;
    const ip = uniqueIp();
    for (const token of [ADMIN_TOKEN, "wrong-admin-token"]) {
      const sized = paddedJson({ name, timezone: "America/New_York" }, MAX_BODY_BYTES + 1);
      const res = await send("POST", "/admin/v1/agencies", sized, { Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip });
      expectError(res, 413, messages.payloadTooLarge, "payload_too_large");
      const { stream } = streamOf(sized);
      const streamed = await send("POST", "/admin/v1/agencies", stream, { Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip });
      expectError(streamed, 413, messages.payloadTooLarge, "payload_too_large");
    }
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM agencies WHERE name = ?").bind(name).first<{ n: number }>();
    expect(rows?.n).toBe(0);
    // Refused before authentication, so the wrong token above was not counted as a failure.
    const failure = await call("GET", "/admin/v1/agencies", { token: "wrong-admin-token", ip });
    expectError(failure, 401, messages.invalidToken, "invalid_token");
    expect(failure.headers.get("RateLimit-Remaining")).toBe("9");
  });
});

describe("JSON nesting depth limit", () => {
  /** A contact whose custom field nests `levels` deep in all, the body's own object included. */
  const contactNesting = (levels: number) => {
    const arrays = levels - 2;
    return `{"first_name":"Ann","last_name":"Lee","custom_fields":{"deep":${"[".repeat(arrays)}1${"]".repeat(arrays)}}}`;
  };

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with 400`, async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, rawBody: contactNesting(MAX_JSON_DEPTH + 1), headers: { "Content-Type": "application/json" } });
    expectError(res, 400, messages.jsonTooDeep, "validation_error");
    expect(res.body.error).toBe("JSON body must not nest deeper than 32 levels");
    expect(await contactCount(token)).toBe(0);
  });

  it(`lets a body of exactly ${MAX_JSON_DEPTH} levels through to validation`, async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, rawBody: contactNesting(MAX_JSON_DEPTH), headers: { "Content-Type": "application/json" } });
    // Parsed and validated: refused only because `deep` is not a custom field of the agency.
    expectError(res, 400, "custom_fields.deep is not a field of this agency", "validation_error");
  });

  it("checks before parsing: a megabyte of opening brackets is refused for depth, not as malformed JSON", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, rawBody: "[".repeat(MAX_BODY_BYTES), headers: { "Content-Type": "application/json; charset=utf-8" } });
    expectError(res, 400, messages.jsonTooDeep, "validation_error");
  });

  it("does not count brackets inside strings", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/contacts", { token, body: { ...CONTACT, source: "[{".repeat(40) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("applies to the operator API too", async () => {
    const res = await call("POST", "/admin/v1/agencies", {
      token: ADMIN_TOKEN,
      ip: uniqueIp(),
      rawBody: `{"name":${"[".repeat(MAX_JSON_DEPTH)}"x"${"]".repeat(MAX_JSON_DEPTH)},"timezone":"UTC"}`,
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 400, messages.jsonTooDeep, "validation_error");
  });
});

describe("operator API authentication failures per client IP", () => {
  afterEach(restoreClock);

  const agencies = (token: string | null, ip: string) => call("GET", "/admin/v1/agencies", { token, ip });

  const expectLocked = (res: ApiResponse, retryAfter?: string) => {
    expectError(res, 429, messages.rateLimited, "rate_limited");
    expect(res.headers.get("RateLimit-Limit")).toBe("10");
    expect(res.headers.get("RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("RateLimit-Policy")).toBe("10;w=60");
    const seconds = Number(res.headers.get("Retry-After"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(res.headers.get("RateLimit-Reset")).toBe(res.headers.get("Retry-After"));
    if (retryAfter) expect(res.headers.get("Retry-After")).toBe(retryAfter);
  };

  it("answers 10 failed attempts from one IP with 401 and the 11th with 429", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) {
      const res = await agencies(i % 2 ? `wrong-${i}` : null, ip);
      expectError(res, 401, messages.invalidToken, "invalid_token");
      expect(res.headers.get("RateLimit-Remaining")).toBe(String(9 - i));
    }
    expectLocked(await agencies("wrong-10", ip));
  });

  it("refuses the right token from a locked-out IP too, and writes nothing", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) expect((await agencies("wrong", ip)).status).toBe(401);
    expectLocked(await agencies(ADMIN_TOKEN, ip));
    const name = `Locked out ${crypto.randomUUID()}`;
    const create = await call("POST", "/admin/v1/agencies", { token: ADMIN_TOKEN, ip, body: { name, timezone: "UTC" } });
    expectLocked(create);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM agencies WHERE name = ?").bind(name).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it("leaves other IPs unaffected", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 11; i++) await agencies("wrong", ip);
    expectLocked(await agencies(ADMIN_TOKEN, ip));
    const other = uniqueIp();
    expect((await agencies(ADMIN_TOKEN, other)).status).toBe(200);
    expectError(await agencies("wrong", other), 401, messages.invalidToken, "invalid_token");
  });

  it("does not count successful requests", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 20; i++) {
      const ok = await agencies(ADMIN_TOKEN, ip);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("RateLimit-Remaining")).toBeNull();
    }
    const failure = await agencies("wrong", ip);
    expectError(failure, 401, messages.invalidToken, "invalid_token");
    expect(failure.headers.get("RateLimit-Remaining")).toBe("9");
  });

  it("answers exactly 10 of 25 concurrent failures with 401 and the rest with 429", async () => {
    const ip = uniqueIp();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => agencies(`guess-${i}`, ip)));
    expect(results.filter((r) => r.status === 401)).toHaveLength(10);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    for (const res of refused) expectLocked(res);
    expectLocked(await agencies(ADMIN_TOKEN, ip));
  });

  it("refuses every request of a concurrent burst from a locked-out IP, the right token among them", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) expect((await agencies(`guess-${i}`, ip)).status).toBe(401);
    const burst = Array.from({ length: 20 }, (_, i) => (i % 5 === 0 ? ADMIN_TOKEN : `guess-${i + 10}`));
    const results = await Promise.all(burst.map((token) => agencies(token, ip)));
    for (const res of results) expectLocked(res);
  });

  it("admits the IP again once its failures leave the one-minute window", async () => {
    setClock("2031-03-01T12:00:00.000Z");
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) expect((await agencies("wrong", ip)).status).toBe(401);
    expectLocked(await agencies(ADMIN_TOKEN, ip), "60");
    advanceClock(59_000);
    expectLocked(await agencies(ADMIN_TOKEN, ip), "1");
    advanceClock(1_000);
    expect((await agencies(ADMIN_TOKEN, ip)).status).toBe(200);
    expectError(await agencies("wrong", ip), 401, messages.invalidToken, "invalid_token");
  });
});

// What the dashboard's browser tests need besides the browser: the operator API (ADMIN_TOKEN),
// to set up an agency and its owner and to issue sign-in links as the platform would, and the
// Partner API, called with a token read from the page. Both go through Playwright's `request`
// (the test's own HTTP client, not the browser: no cookies, nothing the page could see).
import { randomUUID } from "node:crypto";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { expect } from "./fixtures";
import { ADMIN_TOKEN } from "./server";

/** A response's status and JSON body, read once. */
export interface ApiResult {
  status: number;
  body: any;
}

async function resultOf(res: APIResponse): Promise<ApiResult> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the failure message.
  }
  return { status: res.status(), body };
}

/** One operator API call (`/admin/v1<path>`), expecting `expected`; returns the body. */
export async function operator(request: APIRequestContext, method: "GET" | "POST", path: string, data: unknown, expected: number): Promise<any> {
  const result = await resultOf(
    await request.fetch(`/admin/v1${path}`, { method, data, headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }),
  );
  expect(result.status, `${method} /admin/v1${path}: ${JSON.stringify(result.body)}`).toBe(expected);
  return result.body;
}

export interface TestAgency {
  agencyUuid: string;
  ownerUuid: string;
  ownerName: string;
  agencyName: string;
}

/**
 * A new agency with an owner (unique names, so tests never see each other's records), on the
 * second shard: the dashboard then finds its agency's shard from the sign-in link and the
 * session cookie, away from the directory's own database.
 */
export async function createAgencyWithOwner(request: APIRequestContext): Promise<TestAgency> {
  const suffix = randomUUID().slice(0, 8);
  const agencyName = `Browser Test Realty ${suffix}`;
  const ownerName = "Olivia Owner";
  const registered = await request.fetch("/admin/v1/shards/DB_EU", {
    method: "PUT",
    data: { region: "eu", open: true },
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect([200, 201], await registered.text()).toContain(registered.status());
  const { agency } = await operator(request, "POST", "/agencies", { name: agencyName, timezone: "America/New_York", shard: "DB_EU" }, 201);
  const { member } = await operator(
    request,
    "POST",
    `/agencies/${agency.agency_uuid}/members`,
    { name: ownerName, email: `owner-${suffix}@browser-test.example`, role: "owner" },
    201,
  );
  return { agencyUuid: agency.agency_uuid, ownerUuid: member.agent_uuid, ownerName, agencyName };
}

/** A one-time dashboard sign-in link for the member, as the platform's app would get it. */
export async function signInLink(request: APIRequestContext, memberUuid: string): Promise<string> {
  const body = await operator(request, "POST", `/members/${memberUuid}/dashboard-links`, undefined, 201);
  expect(body.success).toBe(true);
  expect(new Date(body.expires_at).getTime()).toBeGreaterThan(Date.now());
  return body.url as string;
}

/** A key created through the operator API (the dashboard must manage it like its own). */
export async function createKeyAsOperator(request: APIRequestContext, agencyUuid: string, name: string, scopes: string[]) {
  const body = await operator(request, "POST", `/agencies/${agencyUuid}/keys`, { name, scopes }, 201);
  return { keyUuid: body.key.key_uuid as string, accessToken: body.access_token as string };
}

/** The operator API's record of one key. */
export async function keyRecord(request: APIRequestContext, agencyUuid: string, keyUuid: string) {
  const { keys } = await operator(request, "GET", `/agencies/${agencyUuid}/keys`, undefined, 200);
  const key = (keys as { key_uuid: string }[]).find((k) => k.key_uuid === keyUuid);
  expect(key, `key ${keyUuid} in the operator API's list`).toBeDefined();
  return key as any;
}

/** One Partner API call (`/api/v2<path>`) with a bearer token. */
export async function partnerGet(request: APIRequestContext, path: string, token: string): Promise<ApiResult> {
  return resultOf(await request.get(`/api/v2${path}`, { headers: { Authorization: `Bearer ${token}` } }));
}

/** A Partner API refusal: its status and its exact message and code. */
export function expectRefusal(result: ApiResult, status: number, error: string, code: string) {
  expect({ status: result.status, error: result.body?.error, code: result.body?.code }, JSON.stringify(result.body)).toEqual({ status, error, code });
  expect(result.body.success).toBe(false);
}

import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const ADMIN_TOKEN = "test-admin-token";
export const BASE = "https://partner.test";

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  ip?: string;
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends a request to the Worker under test, the way a partner would. */
export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.ip) headers["CF-Connecting-IP"] = options.ip;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const response = await exports.default.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export const api = <T = any>(method: string, path: string, options: CallOptions = {}) =>
  call<T>(method, `/api/v2${path}`, options);

export const admin = <T = any>(method: string, path: string, body?: unknown) =>
  call<T>(method, `/admin/v1${path}`, { token: ADMIN_TOKEN, body });

/** Asserts the error envelope (docs/decisions/response-conventions.md), with an exact message when one is given. */
export function expectError(res: ApiResponse, status: number, error?: string | RegExp, code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false });
  expect(typeof (res.body as { error: unknown }).error).toBe("string");
  if (typeof error === "string") expect((res.body as { error: string }).error).toBe(error);
  if (error instanceof RegExp) expect((res.body as { error: string }).error).toMatch(error);
  if (code) expect((res.body as { code: string }).code).toBe(code);
}

let ipCounter = 0;
/** A fresh client IP per call, so per-IP limits never leak between tests. */
export const uniqueIp = () => `198.51.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}-${crypto.randomUUID().slice(0, 8)}`;

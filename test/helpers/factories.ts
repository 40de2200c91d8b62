import { expect } from "vitest";
import { admin, api } from "./http";
import { TEST_SHARDS } from "./shards";

export interface TestAgency {
  agencyUuid: string;
  /** A `*` key. */
  token: string;
  rotateKey: string;
  keyUuid: string;
}

let placed = 0;

/**
 * A new agency on `shard`, or else on each test shard in turn, so every test file exercises
 * both (the operator API's own choice, the least full shard, is tested in shards.test.ts).
 */
export async function createAgency(name = "Test Agency", timezone = "America/New_York", shard?: string) {
  const on = shard ?? TEST_SHARDS[placed++ % TEST_SHARDS.length]!.name;
  const res = await admin("POST", "/agencies", { name, timezone, shard: on });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.agency.agency_uuid as string;
}

export async function createKey(
  agencyUuid: string,
  body: { scopes: string[]; name?: string; expires?: boolean; expires_at?: string; rate_limit_multiplier?: number },
) {
  const res = await admin("POST", `/agencies/${agencyUuid}/keys`, { name: "test key", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    token: res.body.access_token as string,
    rotateKey: res.body.rotate_key as string,
    keyUuid: res.body.key.key_uuid as string,
  };
}

/** A fresh agency with a `*` key: every test gets its own, so order never matters. */
export async function setupAgency(name?: string): Promise<TestAgency> {
  const agencyUuid = await createAgency(name);
  const key = await createKey(agencyUuid, { scopes: ["*"] });
  return { agencyUuid, ...key };
}

/** Like setupAgency, on the shard named. */
export async function setupAgencyOn(shard: string, name?: string): Promise<TestAgency> {
  const agencyUuid = await createAgency(name, undefined, shard);
  const key = await createKey(agencyUuid, { scopes: ["*"] });
  return { agencyUuid, ...key };
}

export async function createMember(agencyUuid: string, overrides: Partial<{ name: string; email: string; role: string }> = {}) {
  const res = await admin("POST", `/agencies/${agencyUuid}/members`, {
    name: "Dana Agent",
    email: `dana-${crypto.randomUUID()}@example.com`,
    role: "agent",
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.member.agent_uuid as string;
}

/**
 * A draft path of the agency, created through POST /paths with a key of its own (the
 * signature predates the paths routes, so callers pass only the agency).
 */
export async function createPathRecord(agencyUuid: string, name = "Seller lead path") {
  const { token } = await createKey(agencyUuid, { scopes: ["paths"], name: "path factory" });
  const res = await api("POST", "/paths", { token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.path.path_uuid as string;
}

/** Changes the agency's settings (any subset) through PATCH /settings and expects 200; returns them. */
export async function patchSettings(token: string, body: Record<string, unknown>) {
  const res = await api("PATCH", "/settings", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.settings as Record<string, any>;
}

import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { admin } from "./http";

export interface TestAgency {
  agencyUuid: string;
  /** A `*` key. */
  token: string;
  rotateKey: string;
  keyUuid: string;
}

export async function createAgency(name = "Test Agency", timezone = "America/New_York") {
  const res = await admin("POST", "/agencies", { name, timezone });
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
 * Paths have no partner routes until the paths issue; until then tests insert one directly,
 * the way the path builder will.
 */
export async function createPathRecord(agencyUuid: string, name = "Seller lead path") {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO paths (id, agency_id, name, status, steps, version, created_at, updated_at) VALUES (?, ?, ?, 'draft', '[]', 1, ?, ?)",
  )
    .bind(id, agencyUuid, name, now, now)
    .run();
  return id;
}

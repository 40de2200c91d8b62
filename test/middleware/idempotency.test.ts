import { describe, expect, it } from "vitest";
import { api, expectError } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { dbOf } from "../helpers/shards";

const fieldBody = (key = `f_${crypto.randomUUID().slice(0, 8)}`) => ({ key, label: "Budget", type: "number" });

const countFields = async (agencyUuid: string) =>
  (await (await dbOf(agencyUuid)).prepare("SELECT count(*) AS n FROM fields WHERE agency_id = ?").bind(agencyUuid).first<{ n: number }>())?.n;

describe("Idempotency-Key", () => {
  it("replays the first response for a retry with the same key and body", async () => {
    const { agencyUuid, token } = await setupAgency();
    const body = fieldBody();
    const headers = { "Idempotency-Key": "retry-1" };
    const first = await api("POST", "/fields", { token, body, headers });
    expect(first.status).toBe(201);
    const second = await api("POST", "/fields", { token, body, headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await countFields(agencyUuid)).toBe(1);
  });

  it("rejects the same key with a different body", async () => {
    const { token } = await setupAgency();
    const headers = { "Idempotency-Key": "retry-2" };
    expect((await api("POST", "/fields", { token, body: fieldBody(), headers })).status).toBe(201);
    const res = await api("POST", "/fields", { token, body: fieldBody(), headers });
    expectError(res, 400, undefined, "idempotency_key_mismatch");
  });

  it("creates one record when the same key is sent twice at once", async () => {
    const { agencyUuid, token } = await setupAgency();
    const body = fieldBody();
    const headers = { "Idempotency-Key": "concurrent-1" };
    const results = await Promise.all([1, 2, 3].map(() => api("POST", "/fields", { token, body, headers })));
    expect(await countFields(agencyUuid)).toBe(1);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, undefined, "idempotency_in_progress");
    // Every 201 is the same record.
    expect(new Set(created.map((r) => r.body.field.field_uuid)).size).toBe(1);
  });

  it("keeps keys apart per agency", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    const headers = { "Idempotency-Key": "shared-key" };
    const body = fieldBody("same_key");
    const ra = await api("POST", "/fields", { token: a.token, body, headers });
    const rb = await api("POST", "/fields", { token: b.token, body, headers });
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.body.field.field_uuid).not.toBe(ra.body.field.field_uuid);
    expect(rb.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("replays a stored 4xx too, so a retry never runs twice", async () => {
    const { token } = await setupAgency();
    const headers = { "Idempotency-Key": "dup-1" };
    const body = fieldBody("dup_key");
    await api("POST", "/fields", { token, body });
    const first = await api("POST", "/fields", { token, body, headers });
    expect(first.status).toBe(409);
    const again = await api("POST", "/fields", { token, body, headers });
    expect(again.status).toBe(409);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("rejects an over-long key", async () => {
    const { token } = await setupAgency();
    const res = await api("POST", "/fields", { token, body: fieldBody(), headers: { "Idempotency-Key": "k".repeat(256) } });
    expectError(res, 400, "Idempotency-Key must be 1 to 255 characters", "validation_error");
  });

  it("forgets a key after 24 hours", async () => {
    const { agencyUuid, token } = await setupAgency();
    const headers = { "Idempotency-Key": "old-key" };
    expect((await api("POST", "/fields", { token, body: fieldBody(), headers })).status).toBe(201);
    await (await dbOf(agencyUuid)).prepare("UPDATE idempotency_keys SET expires_at = ? WHERE agency_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), agencyUuid)
      .run();
    const res = await api("POST", "/fields", { token, body: fieldBody(), headers });
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await countFields(agencyUuid)).toBe(2);
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ORPHAN_GRACE_MS, ORPHAN_SCAN_MAX } from "@/domain/agencies/directory-orphans";
import { createMember, setupAgency } from "../helpers/factories";
import { admin, api, expectError, type ApiResponse } from "../helpers/http";
import { shardNameOf } from "../helpers/shards";

const HOUR = 3_600_000;

interface Orphan {
  record_uuid: string;
  kind: string;
  agency_uuid: string;
  reason: string;
  shard: string | null;
  created_at: string | null;
}

/** A directory row with no record behind it, as a create whose Worker died between its two writes leaves. */
async function plantRow(kind: "api_key" | "member", agencyUuid: string, createdAt: string | null) {
  const id = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO directory_records (id, kind, agency_id, created_at) VALUES (?, ?, ?, ?)").bind(id, kind, agencyUuid, createdAt).run();
  return id;
}

const rowExists = async (id: string) => (await env.DB.prepare("SELECT 1 AS one FROM directory_records WHERE id = ?").bind(id).first()) !== null;

/** Every slice of the directory through the list (or the purge), `limit` rows at a time: the orphans, and each slice's answer. */
async function walk(route: "list" | "purge", limit?: number) {
  const found: Orphan[] = [];
  const slices: { examined: number; next_after: string | null }[] = [];
  let after: string | null = null;
  do {
    const res: ApiResponse<any> =
      route === "list"
        ? await admin("GET", `/directory/orphans?${new URLSearchParams({ ...(after ? { after } : {}), ...(limit ? { limit: String(limit) } : {}) })}`)
        : await admin("POST", "/directory/orphans/purge", { ...(after ? { after } : {}), ...(limit ? { limit } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    found.push(...(route === "list" ? res.body.orphans : res.body.purged));
    slices.push({ examined: res.body.examined, next_after: res.body.next_after });
    after = res.body.next_after;
  } while (after !== null);
  return { found, slices };
}

describe("directory orphans", () => {
  it("lists rows whose record or agency is missing, and not a create still under way, an agency mid-move, or a real key or member", async () => {
    const settled = await setupAgency();
    const member = await createMember(settled.agencyUuid);
    const moving = await setupAgency();
    const old = new Date(Date.now() - 2 * HOUR).toISOString();
    const noKey = await plantRow("api_key", settled.agencyUuid, old);
    const noMember = await plantRow("member", settled.agencyUuid, null);
    const ghostAgency = crypto.randomUUID();
    const noAgency = await plantRow("member", ghostAgency, old);
    const underWay = await plantRow("api_key", settled.agencyUuid, new Date(Date.now() - ORPHAN_GRACE_MS + 60_000).toISOString());
    const midMove = await plantRow("api_key", moving.agencyUuid, old);
    await env.DB.prepare("UPDATE agency_directory SET moving_to = 'DB_EU', move_heartbeat_at = ? WHERE agency_id = ?").bind(new Date().toISOString(), moving.agencyUuid).run();
    try {
      const { found, slices } = await walk("list");
      const mine = found.filter((o) => [noKey, noMember, noAgency, underWay, midMove, settled.keyUuid, member, moving.keyUuid].includes(o.record_uuid));
      const shard = await shardNameOf(settled.agencyUuid);
      expect(mine).toEqual(
        [
          { record_uuid: noKey, kind: "api_key", agency_uuid: settled.agencyUuid, reason: "record_missing", shard, created_at: old },
          { record_uuid: noMember, kind: "member", agency_uuid: settled.agencyUuid, reason: "record_missing", shard, created_at: null },
          { record_uuid: noAgency, kind: "member", agency_uuid: ghostAgency, reason: "agency_missing", shard: null, created_at: old },
        ].sort((a, b) => (a.record_uuid < b.record_uuid ? -1 : 1)),
      );
      expect(slices.at(-1)!.next_after).toBeNull();
      expect(slices.every((s) => s.examined <= ORPHAN_SCAN_MAX)).toBe(true);

      // Small slices find the same, each slice looking at no more rows than asked.
      const sliced = await walk("list", 3);
      expect(sliced.slices.every((s) => s.examined <= 3)).toBe(true);
      expect(sliced.slices.length).toBeGreaterThan(1);
      expect(sliced.found).toEqual(found);
    } finally {
      await env.DB.prepare("UPDATE agency_directory SET moving_to = NULL, move_heartbeat_at = NULL WHERE agency_id = ?").bind(moving.agencyUuid).run();
    }
  });

  it("purges only orphans: the planted rows go, every other row stays and every key still works", async () => {
    const agency = await setupAgency();
    const member = await createMember(agency.agencyUuid);
    const old = new Date(Date.now() - 2 * HOUR).toISOString();
    const orphans = [await plantRow("api_key", agency.agencyUuid, old), await plantRow("member", agency.agencyUuid, null), await plantRow("api_key", crypto.randomUUID(), old)];
    const underWay = await plantRow("member", agency.agencyUuid, new Date().toISOString());
    const rowsBefore = (await env.DB.prepare("SELECT id FROM directory_records ORDER BY id").all<{ id: string }>()).results.map((r) => r.id);

    const { found } = await walk("purge", 50);
    expect(found.map((o) => o.record_uuid).filter((id) => orphans.includes(id)).sort()).toEqual([...orphans].sort());
    for (const id of orphans) expect(await rowExists(id)).toBe(false);
    const rowsAfter = (await env.DB.prepare("SELECT id FROM directory_records ORDER BY id").all<{ id: string }>()).results.map((r) => r.id);
    // Only orphans were deleted: whatever else went was an orphan too (rows planted by no one else in this file).
    expect(rowsBefore.filter((id) => !rowsAfter.includes(id)).sort()).toEqual(found.map((o) => o.record_uuid).sort());
    for (const id of [underWay, agency.keyUuid, member]) expect(await rowExists(id)).toBe(true);
    expect((await api("GET", "/contacts", { token: agency.token })).status).toBe(200);
    expect((await admin("POST", `/members/${member}/dashboard-links`)).status).not.toBe(404);

    // Nothing is left to purge.
    expect((await walk("purge")).found).toEqual([]);
    expect((await walk("list")).found).toEqual([]);
  });

  it("refuses a bad slice with 400", async () => {
    const limitMessage = "limit must be a whole number from 1 to 1000";
    for (const query of ["limit=0", `limit=${ORPHAN_SCAN_MAX + 1}`, "limit=abc"]) {
      expectError(await admin("GET", `/directory/orphans?${query}`), 400, limitMessage, "validation_error");
    }
    expectError(await admin("GET", "/directory/orphans?after=not-a-uuid"), 400, "after must be a UUID", "validation_error");
    for (const limit of [0, 1001, 2.5, "10"]) expectError(await admin("POST", "/directory/orphans/purge", { limit }), 400, limitMessage, "validation_error");
    expectError(await admin("POST", "/directory/orphans/purge", { everything: true }), 400, undefined, "validation_error");
  });
});

import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { createCall, setupVoiceAgency } from "../helpers/voice-factories";
import { dbOf } from "../helpers/shards";

const stored = async (agencyUuid: string) =>
  Object.fromEntries(
    (
      await (await dbOf(agencyUuid)).prepare("SELECT kind, count FROM record_counts WHERE agency_id = ?").bind(agencyUuid).all<{ kind: string; count: number }>()
    ).results.map((r) => [r.kind, r.count]),
  );

const actual = async (agencyUuid: string, deleted: boolean) =>
  (
    await (await dbOf(agencyUuid)).prepare(`SELECT count(*) AS n FROM contacts WHERE agency_id = ? AND deleted_at IS ${deleted ? "NOT " : ""}NULL`)
      .bind(agencyUuid)
      .first<{ n: number }>()
  )?.n;

describe("maintained list totals", () => {
  it("keeps contact totals exact through create, soft delete and restore", async () => {
    const { agencyUuid, token } = await setupAgency();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api("POST", "/contacts", { token, body: { first_name: "Count", last_name: `N${i}`, email: `c${i}@count.example` } });
      expect(res.status).toBe(201);
      ids.push(res.body.contact.contact_uuid);
    }
    expect((await api("DELETE", `/contacts/${ids[0]}`, { token })).status).toBe(200);
    expect((await api("DELETE", `/contacts/${ids[1]}`, { token })).status).toBe(200);
    expect((await api("POST", `/contacts/${ids[1]}/restore`, { token })).status).toBe(200);
    // A failed duplicate create changes nothing.
    expect((await api("POST", "/contacts", { token, body: { first_name: "Dup", last_name: "X", email: "c2@count.example" } })).status).toBe(409);

    expect(await stored(agencyUuid)).toMatchObject({ "contacts.live": 3, "contacts.deleted": 1 });
    expect(await actual(agencyUuid, false)).toBe(3);
    expect(await actual(agencyUuid, true)).toBe(1);
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(3);
    expect((await api("GET", "/contacts?deleted=true", { token })).body.pagination.total).toBe(1);
    // A filtered list still counts its matches.
    expect((await api("GET", "/contacts?q=N3", { token })).body.pagination.total).toBe(1);
  });

  it("answers total 0 for an agency with no contacts yet", async () => {
    const { token } = await setupAgency();
    expect((await api("GET", "/contacts", { token })).body.pagination).toEqual({ page: 1, limit: 20, total: 0, next_cursor: null });
  });

  it("counts an agency's calls for the unfiltered call list", async () => {
    const agency = await setupVoiceAgency();
    for (let i = 0; i < 3; i++) {
      expect((await createCall(agency.token, { delay_seconds: 3600 })).status).toBe("queued");
    }
    const stored = await (await dbOf(agency.agencyUuid)).prepare("SELECT count FROM record_counts WHERE agency_id = ? AND kind = 'voice_calls'")
      .bind(agency.agencyUuid)
      .first<{ count: number }>();
    expect(stored?.count).toBe(3);
    expect((await api("GET", "/voice-ai/calls", { token: agency.token })).body.pagination.total).toBe(3);
    expect((await api("GET", "/voice-ai/calls?status=queued", { token: agency.token })).body.pagination.total).toBe(3);
  });
});

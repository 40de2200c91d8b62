import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { freezeAgency, unfreezeAgency } from "@/db/agency-copy";
import { createWithDirectoryRecord } from "@/db/directory-records";
import { members } from "@/db/schema";
import type { Env } from "@/env";
import { duplicateMemberMessage } from "@/domain/users/members.repository";
import { KEYS_PATH, signIn, submit } from "../helpers/dashboard";
import { createMember, setupAgency } from "../helpers/factories";
import { admin, api, expectError } from "../helpers/http";
import { shardDb, shardNameOf } from "../helpers/shards";

const WRITES_PAUSED = "The agency's data is being moved to another database and writes are paused. Retry after 10 seconds.";

/** The agency's directory rows (its keys and members), by kind. */
async function directoryRowsOf(agencyUuid: string) {
  const rows = await env.DB.prepare("SELECT id, kind FROM directory_records WHERE agency_id = ? ORDER BY id").bind(agencyUuid).all<{ id: string; kind: string }>();
  return rows.results;
}

/** Runs `during` while the agency is in the middle of a move: claimed in the directory, fenced on its shard. */
async function whileMoving(agencyUuid: string, during: () => Promise<void>) {
  const shard = await shardNameOf(agencyUuid);
  const now = new Date().toISOString();
  await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?").bind(shard === "DB" ? "DB_EU" : "DB", now, agencyUuid).run();
  await freezeAgency(shardDb(shard), agencyUuid, "moving", now);
  try {
    await during();
  } finally {
    await unfreezeAgency(shardDb(shard), agencyUuid);
    await env.DB.prepare("UPDATE agency_directory SET moving_to = NULL, move_heartbeat_at = NULL WHERE agency_id = ?").bind(agencyUuid).run();
  }
}

describe("no directory row after a refused create", () => {
  it("of an API key, a legacy calendar token or a team member refused with 503 during a move", async () => {
    const agency = await setupAgency();
    const session = await signIn({ agency });
    const before = await directoryRowsOf(agency.agencyUuid);
    expect(before.map((r) => r.kind).sort()).toEqual(["api_key", "member"]);

    await whileMoving(agency.agencyUuid, async () => {
      const refused = await Promise.all([
        admin("POST", `/agencies/${agency.agencyUuid}/keys`, { name: "During the move", scopes: ["contacts"] }),
        admin("POST", `/agencies/${agency.agencyUuid}/legacy-calendar-tokens`),
        admin("POST", `/agencies/${agency.agencyUuid}/members`, { name: "Mover", email: "mover@example.com", role: "agent" }),
      ]);
      for (const res of refused) expectError(res, 503, WRITES_PAUSED, "agency_moving");
      // The dashboard's "Create key" meets the same fence.
      const page = await submit(session, KEYS_PATH, { name: "From the dashboard", scopes: ["contacts"] });
      expect(page.status, page.html).toBe(503);
    });

    expect(await directoryRowsOf(agency.agencyUuid)).toEqual(before);
    // After the move, creates get their rows as usual.
    const created = await admin("POST", `/agencies/${agency.agencyUuid}/keys`, { name: "After the move", scopes: ["contacts"] });
    expect(created.status).toBe(201);
    expect((await directoryRowsOf(agency.agencyUuid)).map((r) => r.id)).toContain(created.body.key.key_uuid);
    expect((await api("GET", "/contacts", { token: created.body.access_token })).status).toBe(200);
  });

  it("of team members refused with 409, ten racing for one email: one row, the winner's", async () => {
    const { agencyUuid } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner", email: "owner@example.com" });
    const before = await directoryRowsOf(agencyUuid);

    const body = (i: number) => ({ name: `Racer ${i}`, email: "race@example.com", role: "agent" });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => admin("POST", `/agencies/${agencyUuid}/members`, body(i))));
    const won = answers.filter((a) => a.status === 201);
    expect(won).toHaveLength(1);
    const winner = won[0]!.body.member.agent_uuid as string;
    for (const lost of answers.filter((a) => a.status !== 201)) expectError(lost, 409, duplicateMemberMessage(winner), "conflict");
    // A second owner and the same email again: 409 too.
    expectError(await admin("POST", `/agencies/${agencyUuid}/members`, { name: "Second owner", email: "second@example.com", role: "owner" }), 409, "This agency already has an owner", "conflict");
    expectError(await admin("POST", `/agencies/${agencyUuid}/members`, body(11)), 409, duplicateMemberMessage(winner), "conflict");

    const after = await directoryRowsOf(agencyUuid);
    expect(after.map((r) => r.id).sort()).toEqual([...before.map((r) => r.id), winner].sort());
    expect(after.map((r) => r.id)).toContain(owner);
    // The winner's row leads the operator to it.
    const link = await admin("POST", `/members/${winner}/dashboard-links`);
    expect(link.status, JSON.stringify(link.body)).not.toBe(404);
  });
});

describe("createWithDirectoryRecord", () => {
  const record = (agencyId: string) => ({ kind: "member" as const, id: crypto.randomUUID(), agencyId });
  const rowOf = (id: string) => env.DB.prepare("SELECT id, kind, agency_id, created_at FROM directory_records WHERE id = ?").bind(id).first();

  it("keeps the row, stamped, when the record was written, even if an error followed the commit", async () => {
    const { agencyUuid } = await setupAgency();
    const db = createDb(shardDb(await shardNameOf(agencyUuid)));
    const member = record(agencyUuid);
    const at = new Date().toISOString();
    const failure = new Error("the answer was lost after the commit");
    await expect(
      createWithDirectoryRecord(env as unknown as Env, db, member, at, async () => {
        await db.insert(members).values({ id: member.id, agencyId: agencyUuid, name: "Kept", email: `kept-${member.id}@example.com`, role: "agent", createdAt: at, updatedAt: at, removedAt: null });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await rowOf(member.id)).toEqual({ id: member.id, kind: "member", agency_id: agencyUuid, created_at: at });
  });

  it("removes the row when the record was not written, and answers the create's own error", async () => {
    const { agencyUuid } = await setupAgency();
    const db = createDb(shardDb(await shardNameOf(agencyUuid)));
    const member = record(agencyUuid);
    const failure = new Error("refused");
    await expect(
      createWithDirectoryRecord(env as unknown as Env, db, member, new Date().toISOString(), async () => {
        expect(await rowOf(member.id)).not.toBeNull();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await rowOf(member.id)).toBeNull();
  });
});

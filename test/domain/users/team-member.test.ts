import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { ApiError } from "@/lib/errors";
import { resolveTeamMember, TEAM_MEMBER_ALIASES } from "@/domain/users/team-member";
import { createAgency, createMember } from "../../helpers/factories";
import { dbOf } from "../../helpers/shards";


async function expectBadRequest(promise: Promise<unknown>, message?: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(400);
  expect((error as ApiError).code).toBe("validation_error");
  if (message) expect((error as ApiError).message).toMatch(message);
}

describe("resolveTeamMember", () => {
  let agencyId: string;
  let db: ReturnType<typeof createDb>;
  let dana: string;
  let eli: string;
  let outsider: string;

  beforeAll(async () => {
    agencyId = await createAgency("Team member agency");
    db = createDb(await dbOf(agencyId));
    dana = await createMember(agencyId, { name: "Dana Agent" });
    eli = await createMember(agencyId, { name: "Eli Agent" });
    const otherAgency = await createAgency("Another agency");
    outsider = await createMember(otherAgency, { name: "Olive Outsider" });
  });

  it("accepts exactly the five aliases of the specification", () => {
    expect([...TEAM_MEMBER_ALIASES]).toEqual(["agent_uuid", "agentUuid", "user_uuid", "user", "agent"]);
  });

  it.each(TEAM_MEMBER_ALIASES)("resolves `%s` given in the query", async (alias) => {
    const member = await resolveTeamMember(db, agencyId, { [alias]: dana }, undefined);
    expect(member).toEqual({ id: dana, name: "Dana Agent" });
  });

  it.each(TEAM_MEMBER_ALIASES)("resolves `%s` given in the body", async (alias) => {
    const member = await resolveTeamMember(db, agencyId, {}, { [alias]: dana });
    expect(member).toEqual({ id: dana, name: "Dana Agent" });
  });

  it("accepts the same member under two names, in any case", async () => {
    const member = await resolveTeamMember(db, agencyId, { agent: dana.toUpperCase() }, { user_uuid: dana });
    expect(member?.id).toBe(dana);
  });

  it("returns null when no alias is given", async () => {
    expect(await resolveTeamMember(db, agencyId)).toBeNull();
    expect(await resolveTeamMember(db, agencyId, {}, undefined, { other: dana })).toBeNull();
    expect(await resolveTeamMember(db, agencyId, { agent_uuid: "" }, { user: null })).toBeNull();
  });

  it("rejects two different members", async () => {
    await expectBadRequest(resolveTeamMember(db, agencyId, { agent_uuid: dana }, { user: eli }), /one team member/i);
    await expectBadRequest(resolveTeamMember(db, agencyId, { agent_uuid: dana, agentUuid: eli }));
  });

  it("rejects a member of another agency", async () => {
    await expectBadRequest(resolveTeamMember(db, agencyId, { agent_uuid: outsider }), /not found in this agency/);
  });

  it("rejects an unknown member", async () => {
    await expectBadRequest(resolveTeamMember(db, agencyId, { user: crypto.randomUUID() }), /not found in this agency/);
  });

  it.each([["not-a-uuid"], [42], [[crypto.randomUUID()]], [{}]])("rejects the malformed value %j", async (value) => {
    await expectBadRequest(resolveTeamMember(db, agencyId, { agent: value }), /agent must be a UUID/);
  });

  it("does not resolve a removed member", async () => {
    const removed = await createMember(agencyId, { name: "Gone Agent" });
    await (await dbOf(agencyId)).prepare("UPDATE members SET removed_at = ? WHERE id = ?").bind(new Date().toISOString(), removed).run();
    await expectBadRequest(resolveTeamMember(db, agencyId, { agent_uuid: removed }), /not found in this agency/);
  });
});

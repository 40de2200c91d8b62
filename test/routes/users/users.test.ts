import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { ApiError } from "@/lib/errors";
import { resolveTeamMember } from "@/domain/users/team-member";
import { api, expectError } from "../../helpers/http";
import { createMember, setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import { dbOf, dbWith } from "../../helpers/shards";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const MEMBER_KEYS = ["agent_uuid", "name", "email", "role", "created_at"].sort();
const INVITE_KEYS = ["invite_uuid", "email", "role", "status", "expires_at", "created_at"].sort();
const SEVEN_DAYS_MS = 7 * 86_400_000;
const ROLE_MESSAGE =
  "role must be admin or agent; the owner role cannot be invited or assigned (ownership transfer is not available through the API)";
const NOT_FOUND_MESSAGE = "Team member not found";
const OWNER_ROLE_MESSAGE = "The owner's role cannot be changed; ownership transfer is not available through the API";
const OWNER_REMOVE_MESSAGE = "The owner cannot be removed from the agency";

const dbFor = async (agencyUuid: string) => createDb(await dbOf(agencyUuid));
const uniqueEmail = (label = "person") => `${label}-${crypto.randomUUID()}@example.com`;

const listMembers = (token: string, query = "") => api("GET", `/users${query}`, { token });
const listInvites = (token: string, query = "") => api("GET", `/users/invites${query}`, { token });
const invite = (token: string, body: unknown) => api("POST", "/users/invites", { token, body });
const changeRole = (token: string, uuid: string, role: unknown) => api("PATCH", `/users/${uuid}/role`, { token, body: { role } });
const removeMember = (token: string, uuid: string) => api("DELETE", `/users/${uuid}`, { token });
const memberUuids = (res: { body: any }) => res.body.members.map((m: any) => m.agent_uuid);
const inviteUuids = (res: { body: any }) => res.body.invites.map((i: any) => i.invite_uuid);

/** The member as GET /users shows it, or undefined when it is not listed. */
async function listedMember(token: string, uuid: string) {
  const res = await listMembers(token, "?limit=100");
  expect(res.status).toBe(200);
  return (res.body.members as Record<string, any>[]).find((m) => m.agent_uuid === uuid);
}

/** A pending invite row written straight to D1, e.g. one that expired long ago. */
async function insertInvite(agencyUuid: string, email: string, expiresAt: string, createdAt = new Date(Date.parse(expiresAt) - SEVEN_DAYS_MS).toISOString()) {
  const id = crypto.randomUUID();
  await (await dbOf(agencyUuid)).prepare("INSERT INTO invites (id, agency_id, email, role, status, expires_at, created_at) VALUES (?, ?, ?, 'agent', 'pending', ?, ?)")
    .bind(id, agencyUuid, email, expiresAt, createdAt)
    .run();
  return id;
}

const inviteStatus = async (id: string) =>
  (await (await dbWith("invites", id)).prepare("SELECT status FROM invites WHERE id = ?").bind(id).first<{ status: string }>())?.status;

describe("GET /users", () => {
  it("lists live members newest first with exact fields and pagination totals", async () => {
    const { agencyUuid, token } = await setupAgency();
    const owner = await createMember(agencyUuid, { name: "Olivia Owner", email: "Olivia@Example.com", role: "owner" });
    const admin = await createMember(agencyUuid, { name: "Adam Admin", role: "admin" });
    const agent = await createMember(agencyUuid, { name: "Dana Agent", role: "agent" });

    const res = await listMembers(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(memberUuids(res)).toEqual([agent, admin, owner]);
    expect(Object.keys(res.body.members[0]).sort()).toEqual(MEMBER_KEYS);
    expect(res.body.members[2]).toEqual({
      agent_uuid: owner,
      name: "Olivia Owner",
      email: "olivia@example.com",
      role: "owner",
      created_at: expect.stringMatching(ISO),
    });
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await listMembers(token, "?page=2&limit=2");
    expect(memberUuids(page2)).toEqual([owner]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("filters by role and leaves removed members out", async () => {
    const { agencyUuid, token } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const kept = await createMember(agencyUuid, { role: "agent" });
    const gone = await createMember(agencyUuid, { role: "agent" });
    expect((await removeMember(token, gone)).status).toBe(200);

    expect(memberUuids(await listMembers(token))).toEqual([kept, owner]);
    const agents = await listMembers(token, "?role=agent");
    expect(memberUuids(agents)).toEqual([kept]);
    expect(agents.body.pagination.total).toBe(1);
    expect(memberUuids(await listMembers(token, "?role=owner"))).toEqual([owner]);
    expect(memberUuids(await listMembers(token, "?role=admin"))).toEqual([]);
  });

  it("never lists another agency's members", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createMember(a.agencyUuid);
    const res = await listMembers(b.token);
    expect(res.body.members).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await listMembers(token, "?role=boss"), 400, "role must be one of: owner, admin, agent", "validation_error");
    expectError(await listMembers(token, "?page=0"), 400, "page must be a whole number from 1 to 1000000", "validation_error");
  });
});

describe("GET /users/invites", () => {
  it("lists pending invites newest first and hides expired ones", async () => {
    const { agencyUuid, token } = await setupAgency();
    const first = (await invite(token, { email: uniqueEmail("first"), role: "agent" })).body.invite;
    const second = (await invite(token, { email: uniqueEmail("second"), role: "admin" })).body.invite;
    const expired = await insertInvite(agencyUuid, uniqueEmail("expired"), new Date(Date.now() - 60_000).toISOString());

    const res = await listInvites(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(inviteUuids(res)).toEqual([second.invite_uuid, first.invite_uuid]);
    expect(inviteUuids(res)).not.toContain(expired);
    expect(res.body.invites[0]).toEqual(second);
    expect(Object.keys(res.body.invites[0]).sort()).toEqual(INVITE_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 2, next_cursor: null });

    const page2 = await listInvites(token, "?page=2&limit=1");
    expect(inviteUuids(page2)).toEqual([first.invite_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 1, total: 2, next_cursor: null });
  });

  it("never lists another agency's invites", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    expect((await invite(a.token, { email: uniqueEmail(), role: "agent" })).status).toBe(201);
    const res = await listInvites(b.token);
    expect(res.body.invites).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters", async () => {
    const { token } = await setupAgency();
    expectError(await listInvites(token, "?limit=abc"), 400, "limit must be a whole number from 1 to 100", "validation_error");
  });
});

describe("POST /users/invites", () => {
  it("creates a pending invite that expires in seven days", async () => {
    const { token } = await setupAgency();
    const email = uniqueEmail("Sam");
    const before = Date.now();
    const res = await invite(token, { email: email.toUpperCase(), role: "admin" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      invite: {
        invite_uuid: expect.stringMatching(UUID),
        email: email.toLowerCase(),
        role: "admin",
        status: "pending",
        expires_at: expect.stringMatching(ISO),
        created_at: expect.stringMatching(ISO),
      },
    });
    const created = res.body.invite;
    expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(SEVEN_DAYS_MS);
    expect((await listInvites(token)).body.invites).toEqual([created]);
  });

  it("rejects inviting as owner with 400 and creates nothing", async () => {
    const { token } = await setupAgency();
    expectError(await invite(token, { email: uniqueEmail(), role: "owner" }), 400, ROLE_MESSAGE, "validation_error");
    expect((await listInvites(token)).body.pagination.total).toBe(0);
  });

  it.each([
    ["an unknown role", { email: "x@example.com", role: "boss" }, ROLE_MESSAGE],
    ["no role", { email: "x@example.com" }, "role is required"],
    ["no email", { role: "agent" }, "email is required"],
    ["a malformed email", { email: "not-an-email", role: "agent" }, "email must be a valid email address"],
    ["an email that is not a string", { email: 42, role: "agent" }, "email must be a valid email address"],
    ["an unknown field", { email: "x@example.com", role: "agent", name: "X" }, "Unknown field: name"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { token } = await setupAgency();
    expectError(await invite(token, body), 400, message, "validation_error");
    expect((await listInvites(token)).body.pagination.total).toBe(0);
  });

  it("rejects a second invite for a pending email, in any case, with 409 naming the invite", async () => {
    const { token } = await setupAgency();
    const email = uniqueEmail("dup");
    const first = await invite(token, { email, role: "agent" });
    expect(first.status).toBe(201);
    const again = await invite(token, { email: email.toUpperCase(), role: "admin" });
    expectError(again, 409, `A pending invite for this email already exists: ${first.body.invite.invite_uuid}`, "conflict");
    expect((await listInvites(token)).body.invites).toEqual([first.body.invite]);
  });

  it("rejects inviting the email of a team member with 409 naming the member", async () => {
    const { agencyUuid, token } = await setupAgency();
    const email = uniqueEmail("member");
    const member = await createMember(agencyUuid, { email });
    expectError(await invite(token, { email: email.toUpperCase(), role: "agent" }), 409, `A team member with this email already exists: ${member}`, "conflict");
    expect((await listInvites(token)).body.pagination.total).toBe(0);
  });

  it("lets exactly one of several concurrent invites for one email succeed", async () => {
    const { token } = await setupAgency();
    const email = uniqueEmail("race");
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => invite(token, { email, role: i % 2 ? "agent" : "admin" })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!.body.invite;
    for (const loser of results.filter((r) => r.status === 409)) {
      expectError(loser, 409, `A pending invite for this email already exists: ${winner.invite_uuid}`, "conflict");
    }
    expect((await listInvites(token)).body.invites).toEqual([winner]);
  });

  it("invites again once the earlier invite has expired, marking the old one expired", async () => {
    const { agencyUuid, token } = await setupAgency();
    const email = uniqueEmail("again");
    const old = await insertInvite(agencyUuid, email, new Date(Date.now() - 1000).toISOString());
    const res = await invite(token, { email, role: "agent" });
    expect(res.status).toBe(201);
    expect(res.body.invite.invite_uuid).not.toBe(old);
    expect(await inviteStatus(old)).toBe("expired");
    expect(inviteUuids(await listInvites(token))).toEqual([res.body.invite.invite_uuid]);
  });

  it("allows inviting a removed member's email, and the same email in another agency", async () => {
    const { agencyUuid, token } = await setupAgency();
    const email = uniqueEmail("back");
    const member = await createMember(agencyUuid, { email });
    expect((await removeMember(token, member)).status).toBe(200);
    expect((await invite(token, { email, role: "agent" })).status).toBe(201);

    const other = await setupAgency();
    expect((await invite(other.token, { email, role: "agent" })).status).toBe(201);
  });

  it("requires the users scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    await expectScopeRequired(agencyUuid, "POST", "/users/invites", "users", { body: { email: "x@example.com", role: "agent" } });
    expect((await listInvites(token)).body.pagination.total).toBe(0);
  });
});

describe("PATCH /users/{agent_uuid}/role", () => {
  it("promotes and demotes a member", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid, { role: "agent" });
    const before = await listedMember(token, member);

    const promoted = await changeRole(token, member, "admin");
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ success: true, member: { ...before, role: "admin" } });
    expect(await listedMember(token, member)).toEqual({ ...before, role: "admin" });

    const demoted = await changeRole(token, member.toUpperCase(), "agent");
    expect(demoted.status).toBe(200);
    expect(demoted.body.member).toEqual(before);
    expect(await listedMember(token, member)).toEqual(before);
  });

  it("answers the role a member already has with 200", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid, { role: "admin" });
    const res = await changeRole(token, member, "admin");
    expect(res.status).toBe(200);
    expect(res.body.member.role).toBe("admin");
  });

  it.each(["admin", "agent"])("refuses to demote the owner to %s with 409", async (role) => {
    const { agencyUuid, token } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const before = await listedMember(token, owner);
    expectError(await changeRole(token, owner, role), 409, OWNER_ROLE_MESSAGE, "conflict");
    expect(await listedMember(token, owner)).toEqual(before);
  });

  it("rejects making anyone owner with 400 (no ownership transfer)", async () => {
    const { agencyUuid, token } = await setupAgency();
    await createMember(agencyUuid, { role: "owner" });
    const member = await createMember(agencyUuid, { role: "admin" });
    const before = await listedMember(token, member);
    expectError(await changeRole(token, member, "owner"), 400, ROLE_MESSAGE, "validation_error");
    expect(await listedMember(token, member)).toEqual(before);
  });

  it.each([
    ["an unknown role", { role: "boss" }, ROLE_MESSAGE],
    ["no role", {}, "role is required"],
    ["an unknown field", { role: "agent", name: "X" }, "Unknown field: name"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    expectError(await api("PATCH", `/users/${member}/role`, { token, body }), 400, message, "validation_error");
  });

  it("rejects a malformed agent_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await changeRole(token, "dana", "admin"), 400, "agent_uuid must be a UUID", "validation_error");
  });

  it("answers 404 for a random uuid, a removed member and another agency's member, which stays unchanged", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const member = await createMember(owner.agencyUuid, { role: "agent" });
    const removed = await createMember(owner.agencyUuid, { role: "agent" });
    expect((await removeMember(owner.token, removed)).status).toBe(200);
    const before = await listedMember(owner.token, member);

    expectError(await changeRole(owner.token, RANDOM_UUID, "admin"), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await changeRole(owner.token, removed, "admin"), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await changeRole(other.token, member, "admin"), 404, NOT_FOUND_MESSAGE, "not_found");
    expect(await listedMember(owner.token, member)).toEqual(before);
  });

  it("requires the users scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid, { role: "agent" });
    await expectScopeRequired(agencyUuid, "PATCH", `/users/${member}/role`, "users", { body: { role: "admin" } });
    expect((await listedMember(token, member))?.role).toBe("agent");
  });
});

describe("DELETE /users/{agent_uuid}", () => {
  it("removes a member: 200 with the record, then unlisted, 404 and no longer a team member anywhere", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid, { role: "admin" });
    const before = await listedMember(token, member);

    const res = await removeMember(token, member);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, member: before });
    expect(await listedMember(token, member)).toBeUndefined();
    expectError(await removeMember(token, member), 404, NOT_FOUND_MESSAGE, "not_found");

    // Availability and bookings resolve team members through resolveTeamMember: a removed one is unknown.
    const lookup = await resolveTeamMember(await dbFor(agencyUuid), agencyUuid, { agent_uuid: member }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(lookup).toBeInstanceOf(ApiError);
    expect((lookup as ApiError).status).toBe(400);
    expect((lookup as ApiError).message).toBe("Team member not found in this agency");
  });

  it("refuses to remove the owner with 409", async () => {
    const { agencyUuid, token } = await setupAgency();
    const owner = await createMember(agencyUuid, { role: "owner" });
    const before = await listedMember(token, owner);
    expectError(await removeMember(token, owner), 409, OWNER_REMOVE_MESSAGE, "conflict");
    expect(await listedMember(token, owner)).toEqual(before);
    expect(await resolveTeamMember(await dbFor(agencyUuid), agencyUuid, { agent_uuid: owner })).toEqual({ id: owner, name: before!.name });
  });

  it("answers 404 for a random uuid and another agency's member, which stays listed", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const member = await createMember(owner.agencyUuid);
    const before = await listedMember(owner.token, member);
    expectError(await removeMember(owner.token, RANDOM_UUID), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await removeMember(other.token, member), 404, NOT_FOUND_MESSAGE, "not_found");
    expect(await listedMember(owner.token, member)).toEqual(before);
  });

  it("rejects a malformed agent_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await removeMember(token, "42"), 400, "agent_uuid must be a UUID", "validation_error");
  });

  it("requires the users scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await expectScopeRequired(agencyUuid, "DELETE", `/users/${member}`, "users");
    expect(await listedMember(token, member)).toBeDefined();
  });
});

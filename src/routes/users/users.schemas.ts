import { z } from "@hono/zod-openapi";
import { inviteStatuses, memberRoles } from "@/db/schema";
import { instantString, uuidString } from "@/lib/bounded";
import { uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";
import { MAX_EMAIL_LENGTH } from "@/domain/contacts/contacts.rules";
import { INVITE_TTL_DAYS } from "@/domain/users/invites.repository";

/** Members are added only by the operator API (src/admin/admin.schemas.ts): this repeats its name limit. */
export const MAX_MEMBER_NAME_LENGTH = 200;

/** An email address the API stored: validated and lower-cased on the way in. */
const storedEmail = () => z.string().max(MAX_EMAIL_LENGTH).openapi({ format: "email" });

export const assignableRoles = ["admin", "agent"] as const;

export const userMessages = {
  notFound: "Team member not found",
  role: "role must be admin or agent; the owner role cannot be invited or assigned (ownership transfer is not available through the API)",
  roleFilter: `role must be one of: ${memberRoles.join(", ")}`,
  ownerRole: "The owner's role cannot be changed; ownership transfer is not available through the API",
  ownerRemove: "The owner cannot be removed from the agency",
  email: "email must be a valid email address",
} as const;

export const exampleMemberUuid = "9c4d2e1f-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
export const exampleInviteUuid = "2b7e1c90-4d3a-4f5e-8a6b-7c8d9e0f1a2b";

const memberExample = {
  agent_uuid: exampleMemberUuid,
  name: "Dana Agent",
  email: "dana@example.com",
  role: "agent" as const,
  created_at: "2026-10-01T12:00:00.000Z",
};

const inviteExample = {
  invite_uuid: exampleInviteUuid,
  email: "sam@example.com",
  role: "admin" as const,
  status: "pending" as const,
  expires_at: "2026-11-27T14:05:00.000Z",
  created_at: "2026-11-20T14:05:00.000Z",
};

export const TeamMember = z
  .object({
    agent_uuid: uuidString().openapi({ description: "Identifier of the team member (the `agent_uuid` of user paths and team member targeting)." }),
    name: z.string().min(1).max(MAX_MEMBER_NAME_LENGTH),
    email: storedEmail().openapi({ description: "Lower-cased email address; unique among the agency's members." }),
    role: z.enum(memberRoles).openapi({ description: "`owner` (exactly one, cannot be removed or demoted), `admin` or `agent`." }),
    created_at: instantString(),
  })
  .openapi("TeamMember", { example: memberExample });

export const Invite = z
  .object({
    invite_uuid: uuidString().openapi({ description: "Identifier of the invite." }),
    email: storedEmail().openapi({ description: "Lower-cased email address the invite was sent to." }),
    role: z.enum(assignableRoles).openapi({ description: "Role the invitee gets on joining." }),
    status: z.enum(inviteStatuses).openapi({ description: "`pending` until the invite is accepted in the dashboard, revoked or expired." }),
    expires_at: instantString().openapi({ description: `When the invite stops working: ${INVITE_TTL_DAYS} days after it was created.` }),
    created_at: instantString(),
  })
  .openapi("Invite", { example: inviteExample });

export const TeamMemberResponse = z
  .object({ success: z.literal(true), member: TeamMember })
  .openapi("TeamMemberResponse", { example: { success: true, member: memberExample } });

export const TeamMemberListResponse = z
  .object({ success: z.literal(true), members: z.array(TeamMember).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("TeamMemberListResponse", {
    example: { success: true, members: [memberExample], pagination: singlePageExample },
  });

export const InviteResponse = z
  .object({ success: z.literal(true), invite: Invite })
  .openapi("InviteResponse", { example: { success: true, invite: inviteExample } });

export const InviteListResponse = z
  .object({ success: z.literal(true), invites: z.array(Invite).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("InviteListResponse", {
    example: { success: true, invites: [inviteExample], pagination: singlePageExample },
  });

export const MemberParams = z.object({ agent_uuid: uuidParam("agent_uuid") });

export const ListMembersQuery = paginationQuery.extend({
  role: z
    .enum(memberRoles, { error: userMessages.roleFilter })
    .optional()
    .openapi({ param: { name: "role", in: "query" }, description: "Only members with this role.", example: "agent" }),
});

export const ListInvitesQuery = paginationQuery;

const roleField = z
  .enum(assignableRoles, { error: (issue) => (issue.input === undefined ? "role is required" : userMessages.role) })
  .openapi({ description: "`admin` or `agent`. `owner` is 400: an agency has one owner, set in the dashboard.", example: "admin" });

export const CreateInviteBody = z
  .strictObject({
    email: z
      .email({ error: (issue) => (issue.input === undefined ? "email is required" : userMessages.email) })
      .max(MAX_EMAIL_LENGTH, userMessages.email)
      .transform((email) => email.toLowerCase())
      // The transform hides the input's bound from the document: state it here.
      .openapi({ type: "string", format: "email", maxLength: MAX_EMAIL_LENGTH, description: "Stored and returned lower-cased.", example: "sam@example.com" }),
    role: roleField,
  })
  .openapi("CreateInviteRequest", { example: { email: "sam@example.com", role: "admin" } });

export const ChangeRoleBody = z.strictObject({ role: roleField }).openapi("ChangeRoleRequest", { example: { role: "admin" } });

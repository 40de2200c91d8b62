import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { INVITE_TTL_DAYS, duplicateInviteMessage } from "@/domain/users/invites.repository";
import {
  ChangeRoleBody,
  CreateInviteBody,
  InviteListResponse,
  InviteResponse,
  ListInvitesQuery,
  ListMembersQuery,
  MemberParams,
  TeamMemberListResponse,
  TeamMemberResponse,
  exampleInviteUuid,
  userMessages,
} from "./users.schemas";

const TAGS: ["Users"] = ["Users"];
const notFoundExample = { 404: { description: "No live team member with this uuid in your agency.", error: userMessages.notFound } };

export const listMembers = partnerRoute({
  method: "get",
  path: "/users",
  operationId: "listTeamMembers",
  tags: TAGS,
  summary: "List team members",
  description:
    "Lists the agency's team members, newest first (by `created_at`). Removed members are not listed. `role` " +
    "narrows the list to `owner`, `admin` or `agent`. Paginated with `page` and `limit`. A member's `agent_uuid` " +
    "is what calendar availability and bookings accept as the team member.",
  scopes: ["users"],
  request: { query: ListMembersQuery },
  errorExamples: { 400: { error: userMessages.roleFilter } },
  responses: { 200: jsonContent(TeamMemberListResponse, "One page of team members.") },
});

export const listInvites = partnerRoute({
  method: "get",
  path: "/users/invites",
  operationId: "listInvites",
  tags: TAGS,
  summary: "List pending invites",
  description:
    `Lists the invites that can still be accepted: \`status\` \`pending\` and \`expires_at\` in the future, newest ` +
    `first. Invites expire ${INVITE_TTL_DAYS} days after they are created; expired, accepted and revoked invites are ` +
    "not listed. Paginated with `page` and `limit`.",
  scopes: ["users"],
  request: { query: ListInvitesQuery },
  responses: { 200: jsonContent(InviteListResponse, "One page of pending invites.") },
});

export const createInvite = partnerRoute({
  method: "post",
  path: "/users/invites",
  operationId: "createInvite",
  tags: TAGS,
  summary: "Invite a team member",
  description:
    `Invites a person by email to join the agency as \`admin\` or \`agent\`; the invite expires after ${INVITE_TTL_DAYS} ` +
    "days and is accepted in the agency dashboard. `owner` is 400: an agency has exactly one owner. An email that " +
    "already belongs to a team member, or that has a pending invite, is 409 naming the member or invite (emails " +
    "compare case-insensitively). Once an invite has expired the email can be invited again.",
  scopes: ["users"],
  request: { body: jsonBody(CreateInviteBody) },
  errorExamples: {
    400: { error: userMessages.role },
    409: {
      description: "A team member already has this email, or a pending invite exists for it.",
      error: duplicateInviteMessage(exampleInviteUuid),
    },
  },
  responses: { 201: jsonContent(InviteResponse, "The pending invite.") },
});

export const changeRole = partnerRoute({
  method: "patch",
  path: "/users/{agent_uuid}/role",
  operationId: "changeTeamMemberRole",
  tags: TAGS,
  summary: "Change team member role",
  description:
    "Sets a member's role to `admin` or `agent`. The owner's role cannot be changed (409), and `owner` cannot be " +
    "assigned (400): ownership transfer is not available through the API. Setting the role a member already has " +
    "answers 200 with the member unchanged.",
  scopes: ["users"],
  request: { params: MemberParams, body: jsonBody(ChangeRoleBody) },
  errors: [409],
  errorExamples: {
    400: { error: userMessages.role },
    ...notFoundExample,
    409: { description: "The member is the agency's owner.", error: userMessages.ownerRole },
  },
  responses: { 200: jsonContent(TeamMemberResponse, "The member with the new role.") },
});

export const removeMember = partnerRoute({
  method: "delete",
  path: "/users/{agent_uuid}",
  operationId: "removeTeamMember",
  tags: TAGS,
  summary: "Remove team member",
  description:
    "Removes a member from the agency: afterwards the member is not listed, cannot be targeted for availability or " +
    "bookings, and is 404 here. Appointments already booked with the member are kept. The owner cannot be removed " +
    "(409). Answers with the removed member's record. The email can then be invited again.",
  scopes: ["users"],
  request: { params: MemberParams },
  errors: [409],
  errorExamples: {
    ...notFoundExample,
    409: { description: "The member is the agency's owner.", error: userMessages.ownerRemove },
  },
  responses: { 200: jsonContent(TeamMemberResponse, "The removed member.") },
});


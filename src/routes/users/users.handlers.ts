import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { conflict, notFound } from "@/lib/errors";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as invitesRepo from "@/domain/users/invites.repository";
import * as membersRepo from "@/domain/users/members.repository";
import type * as routes from "./users.routes";
import { userMessages } from "./users.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const memberBody = (row: membersRepo.MemberRow) => ({ success: true as const, member: membersRepo.toPublicMember(row) });

export const listMembers: Handler<"listMembers"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, membersRepo.memberOrder);
  const found = await membersRepo.listMembers(c.var.db, c.var.caller.agencyId, { role: query.role }, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, membersRepo.memberOrder.keysOf);
  return c.json({ success: true as const, members: rows.map(membersRepo.toPublicMember), pagination }, 200);
};

export const listInvites: Handler<"listInvites"> = async (c) => {
  const asked = await askedPage(c, c.req.valid("query"), invitesRepo.inviteOrder);
  const found = await invitesRepo.listOpenInvites(c.var.db, c.var.caller.agencyId, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, invitesRepo.inviteOrder.keysOf);
  return c.json({ success: true as const, invites: rows.map(invitesRepo.toPublicInvite), pagination }, 200);
};

export const createInvite: Handler<"createInvite"> = async (c) => {
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const member = await membersRepo.findLiveMemberByEmail(db, agencyId, body.email);
  if (member) throw conflict(membersRepo.duplicateMemberMessage(member.id));
  const invite = await invitesRepo.createInvite(db, agencyId, body);
  return c.json({ success: true as const, invite: invitesRepo.toPublicInvite(invite) }, 201);
};

/** A conditional write changed nothing: the member is missing or removed (404), or the owner (409). */
async function ownerOrMissing(c: { var: AppBindings["Variables"] }, memberId: string, ownerMessage: string): Promise<never> {
  const current = await membersRepo.getLiveMember(c.var.db, c.var.caller.agencyId, memberId);
  if (!current) throw notFound(userMessages.notFound);
  throw conflict(ownerMessage);
}

export const changeRole: Handler<"changeRole"> = async (c) => {
  const { agent_uuid } = c.req.valid("param");
  const { role } = c.req.valid("json");
  const updated = await membersRepo.changeRole(c.var.db, c.var.caller.agencyId, agent_uuid, role);
  if (!updated) return ownerOrMissing(c, agent_uuid, userMessages.ownerRole);
  return c.json(memberBody(updated), 200);
};

export const removeMember: Handler<"removeMember"> = async (c) => {
  const { agent_uuid } = c.req.valid("param");
  const removed = await membersRepo.removeMember(c.var.db, c.var.caller.agencyId, agent_uuid);
  if (!removed) return ownerOrMissing(c, agent_uuid, userMessages.ownerRemove);
  return c.json(memberBody(removed), 200);
};

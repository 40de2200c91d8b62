import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { conflict, notFound } from "@/lib/errors";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as agents from "@/domain/voice-ai/agents.repository";
import * as calls from "@/domain/voice-ai/calls.repository";
import { createCall } from "@/domain/voice-ai/create-call";
import * as wallet from "@/domain/voice-ai/wallet.repository";
import type * as routes from "./voice-ai.routes";
import { voiceMessages } from "@/domain/voice-ai/voice-ai.rules";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const callBody = (row: calls.VoiceCallRow) => ({ success: true as const, call: calls.toPublicCall(row) });

export const listVoiceAgents: Handler<"listVoiceAgents"> = async (c) => {
  const asked = await askedPage(c, c.req.valid("query"), agents.agentOrder);
  const found = await agents.listAgents(c.var.db, c.var.caller.agencyId, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, agents.agentOrder.keysOf);
  return c.json({ success: true as const, agents: rows.map(agents.toPublicAgent), pagination }, 200);
};

export const getVoiceAgent: Handler<"getVoiceAgent"> = async (c) => {
  const agent = await agents.getAgent(c.var.db, c.var.caller.agencyId, c.req.valid("param").agent_uuid);
  if (!agent) throw notFound(voiceMessages.agentNotFound);
  return c.json({ success: true as const, agent: agents.toPublicAgent(agent) }, 200);
};

export const listVoiceCalls: Handler<"listVoiceCalls"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, calls.callOrder);
  const found = await calls.listCalls(c.var.db, c.var.caller.agencyId, { status: query.status, contactId: query.contact_uuid }, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, calls.callOrder.keysOf);
  return c.json({ success: true as const, calls: rows.map(calls.toPublicCall), pagination }, 200);
};

/** See createCall: two D1 round trips, the queue's message after the write. */
export const createVoiceCall: Handler<"createVoiceCall"> = async (c) => {
  const call = await createCall({ db: c.var.db, queue: c.env.CALL_QUEUE, logger: c.var.logger }, c.var.caller.agencyId, c.req.valid("json"));
  return c.json(callBody(call), 201);
};

export const getVoiceCall: Handler<"getVoiceCall"> = async (c) => {
  const call = await calls.getCall(c.var.db, c.var.caller.agencyId, c.req.valid("param").call_uuid);
  if (!call) throw notFound(voiceMessages.callNotFound);
  return c.json(callBody(call), 200);
};

export const cancelVoiceCall: Handler<"cancelVoiceCall"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const { call_uuid } = c.req.valid("param");
  const canceled = await calls.cancelCall(db, agencyId, call_uuid);
  if (canceled) return c.json(callBody(canceled), 200);
  const call = await calls.getCall(db, agencyId, call_uuid);
  if (!call) throw notFound(voiceMessages.callNotFound);
  throw conflict(voiceMessages.notCancelable(call.status));
};

export const getVoiceWallet: Handler<"getVoiceWallet"> = async (c) => {
  const row = await wallet.getWallet(c.var.db, c.var.caller.agencyId);
  return c.json({ success: true as const, wallet: wallet.toPublicWallet(row) }, 200);
};

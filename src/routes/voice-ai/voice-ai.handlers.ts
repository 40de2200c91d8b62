import type { RouteHandler } from "@hono/zod-openapi";
import { enqueueNewCall } from "@/jobs/enqueue";
import type { AppBindings } from "@/lib/context";
import { ApiError, conflict, notFound } from "@/lib/errors";
import { paginationOf } from "@/lib/pagination";
import * as agents from "./agents.repository";
import * as calls from "./calls.repository";
import { planCallContact, settleCallContact } from "./call-contact";
import { callTiming } from "./call-schedule";
import * as wallet from "./wallet.repository";
import type * as routes from "./voice-ai.routes";
import { voiceMessages } from "./voice-ai.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const callBody = (row: calls.VoiceCallRow) => ({ success: true as const, call: calls.toPublicCall(row) });

export const listVoiceAgents: Handler<"listVoiceAgents"> = async (c) => {
  const page = c.req.valid("query");
  const { rows, total } = await agents.listAgents(c.var.db, c.var.caller.agencyId, page);
  return c.json({ success: true as const, agents: rows.map(agents.toPublicAgent), pagination: paginationOf(page, total) }, 200);
};

export const getVoiceAgent: Handler<"getVoiceAgent"> = async (c) => {
  const agent = await agents.getAgent(c.var.db, c.var.caller.agencyId, c.req.valid("param").agent_uuid);
  if (!agent) throw notFound(voiceMessages.agentNotFound);
  return c.json({ success: true as const, agent: agents.toPublicAgent(agent) }, 200);
};

export const listVoiceCalls: Handler<"listVoiceCalls"> = async (c) => {
  const { page, limit, status, contact_uuid } = c.req.valid("query");
  const { rows, total } = await calls.listCalls(c.var.db, c.var.caller.agencyId, { status, contactId: contact_uuid }, { page, limit });
  return c.json({ success: true as const, calls: rows.map(calls.toPublicCall), pagination: paginationOf({ page, limit }, total) }, 200);
};

export const createVoiceCall: Handler<"createVoiceCall"> = async (c) => {
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const now = Date.now();

  const timing = callTiming(body, await calls.agencyTimezone(db, agencyId), now);
  const target = await agents.resolveDialTarget(db, agencyId, { agentId: body.voice_agent_uuid, numberId: body.outbound_phone_number_uuid });
  const contactPlan = await planCallContact(db, agencyId, body);
  const balance = (await wallet.getWallet(db, agencyId))?.balanceCents ?? 0;
  if (balance <= 0) throw new ApiError("insufficient_funds", voiceMessages.insufficientFunds);

  const contact = await settleCallContact(db, agencyId, body.phone, contactPlan);
  const call = await calls.insertCall(
    db,
    agencyId,
    {
      contactId: contact.contactId,
      contactName: contact.contactName,
      phone: body.phone,
      agentId: target.agent.id,
      phoneNumberId: target.number.id,
      status: timing.status,
      scheduledAt: timing.scheduledAt,
      dueAt: timing.dueAt,
    },
    new Date(now).toISOString(),
  );
  if (call.status === "queued") {
    try {
      await enqueueNewCall(db, c.env.CALL_QUEUE, call, now);
    } catch (error) {
      // The call is stored: the cron sends calls that are due but were never enqueued.
      c.var.logger.error("enqueueing a voice call failed; the sweep will retry", { call_id: call.id, error: (error as Error).message });
    }
  }
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

import type { RouteHandler } from "@hono/zod-openapi";
import type { BatchItem } from "drizzle-orm/batch";
import { sendDials } from "@/lib/queues/enqueue-calls";
import type { AppBindings } from "@/lib/context";
import { ApiError, conflict, notFound } from "@/lib/errors";
import { answeredPage, askedPage } from "@/routes/list-pages";
import { agencySettingsQuery, callingWindowOf, effectiveSettings } from "@/domain/settings/settings.repository";
import * as agents from "@/domain/voice-ai/agents.repository";
import * as calls from "@/domain/voice-ai/calls.repository";
import { callContactQuery, callContactWrite, planCallContact } from "@/domain/voice-ai/call-contact";
import { callTiming } from "@/domain/voice-ai/call-schedule";
import * as wallet from "@/domain/voice-ai/wallet.repository";
import type * as routes from "./voice-ai.routes";
import { voiceMessages } from "@/domain/voice-ai/voice-ai.rules";
import { commit } from "@/db/outbox";

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

/**
 * Two D1 round trips: one batch reads everything the checks need (settings with the timezone,
 * agent, number, contact, wallet), then one batch writes the contact (if new) and the call,
 * each with its event (`contact.created`, `call.scheduled`). The
 * checks keep their order on the rows read: timing (calling hours), agent and number, contact, funds. A queued call is
 * stored with `enqueued_at` set and its message sent after the write, as the sweep does when
 * it promotes calls; if the queue refuses, `enqueued_at` is cleared for the cron (a third trip).
 */
export const createVoiceCall: Handler<"createVoiceCall"> = async (c) => {
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const now = Date.now();
  const refs = { agentId: body.voice_agent_uuid, numberId: body.outbound_phone_number_uuid };

  const [settingsRows, agentRows, numberRows, contactRows, walletRows] = await commit(db, [
    // Calling hours and timezone (`scheduled_at` wall-clock times are read in it), default agent.
    agencySettingsQuery(db, agencyId),
    ...agents.dialTargetQueries(db, agencyId, refs),
    callContactQuery(db, agencyId, body),
    wallet.walletQuery(db, agencyId),
  ]);
  const settings = effectiveSettings(settingsRows[0]);
  const timing = callTiming(body, callingWindowOf(settings), now);
  const target = agents.pickDialTarget(refs, settings.voice.default_voice_agent_uuid, agentRows[0], numberRows[0]);
  const contactPlan = planCallContact(body, contactRows[0]);
  const balance = walletRows[0]?.balanceCents ?? 0;
  if (balance <= 0) throw new ApiError("insufficient_funds", voiceMessages.insufficientFunds);

  const createdAt = new Date(now).toISOString();
  const queued = timing.status === "queued";
  const contact = callContactWrite(db, agencyId, body.phone, contactPlan, createdAt);
  const row = calls.newCallRow(
    agencyId,
    {
      contactId: null,
      contactName: contact.contactName,
      phone: body.phone,
      agentId: target.agent.id,
      phoneNumberId: target.number.id,
      status: timing.status,
      scheduledAt: timing.scheduledAt,
      dueAt: timing.dueAt,
      dispatchAt: timing.dispatchAt,
      // Marked as sent in the same write; cleared below if the queue refuses the message.
      enqueuedAt: queued ? createdAt : null,
    },
    createdAt,
  );
  // The contact's writes (if any), the call, its event: the call's result follows the contact's.
  const writes = [...contact.writes, calls.insertCallStatement(db, row, contact.contactId), calls.callEvent(db, agencyId, row.id, "call.scheduled")];
  const results = await commit(db, writes as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [linked] = results[contact.writes.length] as { contactId: string | null }[];
  const call: calls.VoiceCallRow = { ...row, contactId: linked?.contactId ?? null };

  if (queued) {
    try {
      await sendDials(c.env.CALL_QUEUE, [call], now);
    } catch (error) {
      // The call is stored: the cron sends calls that are due but were never enqueued.
      c.var.logger.error("enqueueing a voice call failed; the sweep will retry", { call_id: call.id, error: (error as Error).message });
      try {
        await calls.releaseEnqueued(db, call.id, createdAt);
      } catch (releaseError) {
        // Still sent by the sweep, as a call whose message was lost.
        c.var.logger.error("releasing a voice call for the sweep failed", { call_id: call.id, error: (releaseError as Error).message });
      }
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

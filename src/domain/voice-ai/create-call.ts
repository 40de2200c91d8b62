import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { commit } from "@/db/outbox";
import { ApiError } from "@/lib/errors";
import type { Logger } from "@/lib/logger";
import type { CallMessage } from "@/lib/queues/call-message";
import { sendDials } from "@/lib/queues/enqueue-calls";
import { agencySettingsQuery, callingWindowOf, effectiveSettings } from "@/domain/settings/settings.repository";
import * as agents from "./agents.repository";
import * as calls from "./calls.repository";
import { callContactQuery, callContactWrite, planCallContact } from "./call-contact";
import { callTiming } from "./call-schedule";
import * as wallet from "./wallet.repository";
import { voiceMessages, type CallRequest } from "./voice-ai.rules";

export interface CreateCallDeps {
  db: Db;
  queue: Queue<CallMessage>;
  logger: Logger;
}

/**
 * A call as `POST /voice-ai/calls` creates it. Two D1 round trips: one batch reads everything
 * the checks need (settings with the timezone, agent, number, contact, wallet), then one batch
 * writes the contact (if new) and the call, each with its event (`contact.created`,
 * `call.scheduled`). The checks keep their order on the rows read: timing (calling hours), agent
 * and number, contact, funds. A queued call is stored with `enqueued_at` set and its message sent
 * after the write, as the sweep does when it promotes calls; if the queue refuses, `enqueued_at`
 * is cleared for the cron (a third trip).
 */
export async function createCall(deps: CreateCallDeps, agencyId: string, body: CallRequest): Promise<calls.VoiceCallRow> {
  const { db, logger } = deps;
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
      await sendDials(deps.queue, [call], now);
    } catch (error) {
      // The call is stored: the cron sends calls that are due but were never enqueued.
      logger.error("enqueueing a voice call failed; the sweep will retry", { call_id: call.id, error: (error as Error).message });
      try {
        await calls.releaseEnqueued(db, call.id, createdAt);
      } catch (releaseError) {
        // Still sent by the sweep, as a call whose message was lost.
        logger.error("releasing a voice call for the sweep failed", { call_id: call.id, error: (releaseError as Error).message });
      }
    }
  }
  return call;
}

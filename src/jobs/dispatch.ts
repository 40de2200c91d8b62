import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { voiceAgents, voiceCalls, voicePhoneNumbers } from "@/db/schema";
import type { Logger } from "@/lib/logger";
import { callCostCents, callDebitStatements, DEFAULT_RATE_PER_MINUTE_CENTS, getWallet } from "@/routes/voice-ai/wallet.repository";
import type { VoiceCallRow } from "@/routes/voice-ai/calls.repository";
import {
  endedReasons,
  MAX_CALL_DURATION_SECONDS,
  MAX_DIAL_ATTEMPTS,
  POLL_INTERVAL_SECONDS,
  retryDelaySeconds,
  type CallMessage,
} from "./call-message";
import { sendPoll } from "./enqueue";
import { ProviderError, type CallOutcome, type VoiceProvider } from "./providers/types";

/** What the consumer does with the message afterwards. */
export type DispatchResult = { action: "ack"; outcome: string } | { action: "retry"; delaySeconds: number; outcome: string };

export interface DispatchDeps {
  db: Db;
  queue: Queue<CallMessage>;
  provider: VoiceProvider;
  logger: Logger;
  /** Milliseconds since the epoch; tests may pin it. */
  now?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The claim: `queued` -> `in-progress`, counting the attempt. Conditional, so of two
 * deliveries of one message only one gets the row, and a canceled call is never claimed.
 */
const claim = (db: Db, callId: string, now: string) =>
  db
    .update(voiceCalls)
    .set({ status: "in-progress", attempts: sql`${voiceCalls.attempts} + 1`, startedAt: now, updatedAt: now })
    .where(and(eq(voiceCalls.id, callId), eq(voiceCalls.status, "queued")))
    .returning()
    .get();

/** The row as this claim left it: still ours only while `in-progress` with our attempt number. */
const ours = (call: Pick<VoiceCallRow, "id" | "attempts">) =>
  and(eq(voiceCalls.id, call.id), eq(voiceCalls.status, "in-progress"), eq(voiceCalls.attempts, call.attempts));

/** Puts a call whose dial failed back to `queued`, due again after the backoff. */
async function releaseForRetry(db: Db, call: VoiceCallRow, retryAt: number, now: string) {
  const released = await db
    .update(voiceCalls)
    .set({ status: "queued", dueAt: iso(retryAt), enqueuedAt: now, startedAt: null, updatedAt: now })
    .where(ours(call))
    .returning({ id: voiceCalls.id });
  return released.length > 0;
}

/** Ends a call as `failed` without a charge. */
async function failClaimed(db: Db, call: VoiceCallRow, reason: string, now: string) {
  await db
    .update(voiceCalls)
    .set({ status: "failed", endedReason: reason, startedAt: null, endedAt: now, durationSeconds: 0, costCents: 0, updatedAt: now })
    .where(ours(call));
}

/**
 * Records how the call ended and, for a completed call, debits the wallet, all in one batch:
 * the debit statements read the row this batch just completed, and the ledger's unique index
 * makes a second debit of the same call impossible (see callDebitStatements).
 */
export async function completeCall(db: Db, call: VoiceCallRow, providerCallId: string, outcome: CallOutcome, now: string) {
  const rate = (await getWallet(db, call.agencyId))?.ratePerMinuteCents ?? DEFAULT_RATE_PER_MINUTE_CENTS;
  const cost = outcome.status === "completed" ? callCostCents(outcome.durationSeconds, rate) : 0;
  const [updated] = await db.batch([
    db
      .update(voiceCalls)
      .set({
        status: outcome.status,
        endedReason: outcome.endedReason,
        providerCallId,
        startedAt: outcome.startedAt,
        endedAt: outcome.endedAt,
        durationSeconds: outcome.durationSeconds,
        summary: outcome.summary,
        costCents: cost,
        updatedAt: now,
      })
      .where(ours(call))
      .returning({ id: voiceCalls.id }),
    ...callDebitStatements(db, call.agencyId, call.id, now),
  ]);
  return updated.length > 0;
}

async function dialContext(db: Db, call: VoiceCallRow) {
  const agent = call.agentId
    ? await db.select().from(voiceAgents).where(and(eq(voiceAgents.id, call.agentId), eq(voiceAgents.agencyId, call.agencyId))).get()
    : undefined;
  const number = call.phoneNumberId
    ? await db
        .select()
        .from(voicePhoneNumbers)
        .where(and(eq(voicePhoneNumbers.id, call.phoneNumberId), eq(voicePhoneNumbers.agencyId, call.agencyId)))
        .get()
    : undefined;
  return { agent, number };
}

/**
 * A `dial` message: claim the call, place it, record the result. A provider failure puts the
 * call back to `queued` and asks for a redelivery after an exponential backoff; after the
 * last attempt (or a failure retrying cannot fix) the call ends `failed`, never charged.
 */
export async function dialCall(deps: DispatchDeps, callId: string): Promise<DispatchResult> {
  const { db, provider, logger } = deps;
  const nowMs = deps.now ?? Date.now();
  const now = iso(nowMs);
  const call = await claim(db, callId, now);
  if (!call) return { action: "ack", outcome: "not-queued" };

  const { agent, number } = await dialContext(db, call);
  if (!agent) {
    await failClaimed(db, call, endedReasons.dialFailed, now);
    return { action: "ack", outcome: "failed" };
  }

  let state;
  try {
    state = await provider.startCall({
      callId: call.id,
      agencyId: call.agencyId,
      phone: call.phone,
      contactName: call.contactName,
      agent: { id: agent.id, name: agent.name, providerAgentId: agent.providerAgentId },
      fromNumber: number ? { id: number.id, number: number.number, providerNumberId: number.providerNumberId } : null,
      attempt: call.attempts,
      maxDurationSeconds: MAX_CALL_DURATION_SECONDS,
      now,
    });
  } catch (error) {
    const retryable = !(error instanceof ProviderError) || error.retryable;
    logger.warn("voice call dial failed", { call_id: call.id, attempt: call.attempts, retryable, error: (error as Error).message });
    if (retryable && call.attempts < MAX_DIAL_ATTEMPTS) {
      const delaySeconds = retryDelaySeconds(call.attempts);
      if (await releaseForRetry(db, call, nowMs + delaySeconds * 1000, now)) return { action: "retry", delaySeconds, outcome: "retry" };
      return { action: "ack", outcome: "changed" };
    }
    await failClaimed(db, call, endedReasons.dialFailed, now);
    return { action: "ack", outcome: "failed" };
  }

  if (state.state === "ended") {
    await completeCall(db, call, state.providerCallId, state.outcome, now);
    return { action: "ack", outcome: state.outcome.status };
  }
  await db.update(voiceCalls).set({ providerCallId: state.providerCallId, updatedAt: now }).where(ours(call));
  await sendPoll(deps.queue, call.id, state.pollAfterSeconds);
  return { action: "ack", outcome: "in-progress" };
}

/** A `poll` message: ask the provider about an `in-progress` call, complete it once it ended. */
export async function pollCall(deps: DispatchDeps, callId: string): Promise<DispatchResult> {
  const { db, provider, logger } = deps;
  const now = iso(deps.now ?? Date.now());
  const call = await db.select().from(voiceCalls).where(eq(voiceCalls.id, callId)).get();
  if (!call || call.status !== "in-progress" || !call.providerCallId) return { action: "ack", outcome: "not-in-progress" };
  let state;
  try {
    state = await provider.getCall(call.providerCallId, now);
  } catch (error) {
    const retryable = !(error instanceof ProviderError) || error.retryable;
    logger.warn("voice call poll failed", { call_id: call.id, retryable, error: (error as Error).message });
    // Not retryable means the provider does not know the call; the sweep closes it in time.
    if (retryable) await sendPoll(deps.queue, call.id, POLL_INTERVAL_SECONDS);
    return { action: "ack", outcome: "poll-failed" };
  }
  if (state.state === "ended") {
    await completeCall(db, call, state.providerCallId, state.outcome, now);
    return { action: "ack", outcome: state.outcome.status };
  }
  await db.update(voiceCalls).set({ updatedAt: now }).where(ours(call));
  await sendPoll(deps.queue, call.id, state.pollAfterSeconds);
  return { action: "ack", outcome: "in-progress" };
}

/**
 * A message that exhausted the queue's retries (the consumer kept crashing) lands in the
 * dead-letter queue: a call still waiting to be dialed ends `failed` there, uncharged.
 */
export async function failUndialed(db: Db, callId: string, now = Date.now()) {
  const at = iso(now);
  const failed = await db
    .update(voiceCalls)
    .set({ status: "failed", endedReason: endedReasons.dialFailed, endedAt: at, durationSeconds: 0, costCents: 0, updatedAt: at })
    .where(and(eq(voiceCalls.id, callId), eq(voiceCalls.status, "queued")))
    .returning({ id: voiceCalls.id });
  return failed.length > 0;
}

import { and, eq, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { agencies, voiceAgents, voiceCalls, voicePhoneNumbers } from "@/db/schema";
import { openingAtOrAfter } from "@/lib/calling-window";
import type { Logger } from "@/lib/logger";
import { agencySettingsQuery, callingWindowOf, effectiveSettings, type AgencySettings } from "@/domain/settings/settings.repository";
import { DEFAULT_SETTINGS } from "@/domain/settings/settings.model";
import type { VoiceAgentRow, VoicePhoneNumberRow } from "./agents.repository";
import { callCostCents, callDebitStatements, DEFAULT_RATE_PER_MINUTE_CENTS, getWallet } from "./wallet.repository";
import { callEvent, changeCall, type VoiceCallRow } from "./calls.repository";
import {
  endedReasons,
  MAX_CALL_DURATION_SECONDS,
  MAX_CALL_SUMMARY_LENGTH,
  MAX_DIAL_ATTEMPTS,
  MAX_ENDED_REASON_LENGTH,
  POLL_INTERVAL_SECONDS,
  retryDelaySeconds,
  type CallMessage,
} from "@/lib/queues/call-message";
import { sendPoll } from "@/lib/queues/enqueue-calls";
import { ProviderError, type CallOutcome, type DialRequest, type ProviderCallState, type VoiceProvider } from "./voice-provider";
import { commit } from "@/db/outbox";

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

type VoiceSettings = AgencySettings["voice"];

/**
 * The claim: `queued` -> `in-progress`, counting the attempt and recording the voice settings
 * the provider is told. Conditional, so of two deliveries of one message only one gets the
 * row, and a canceled call is never claimed.
 */
const claim = (db: Db, callId: string, now: string, voice: VoiceSettings) =>
  db
    .update(voiceCalls)
    .set({
      status: "in-progress",
      attempts: sql`${voiceCalls.attempts} + 1`,
      startedAt: now,
      dispatchAt: null,
      maxDurationSeconds: voice.max_call_minutes * 60,
      voicemailBehavior: voice.voicemail_behavior,
      updatedAt: now,
    })
    .where(and(eq(voiceCalls.id, callId), eq(voiceCalls.status, "queued")))
    .returning();

/** The row as this claim left it: still ours only while `in-progress` with our attempt number. */
const ours = (call: Pick<VoiceCallRow, "id" | "attempts">) =>
  and(eq(voiceCalls.id, call.id), eq(voiceCalls.status, "in-progress"), eq(voiceCalls.attempts, call.attempts));

/**
 * ...and placed as this provider call, or not yet known by one: a report of another provider
 * call (an earlier attempt's, answered late) never ends this attempt.
 */
const oursAs = (call: Pick<VoiceCallRow, "id" | "attempts">, providerCallId: string) =>
  and(ours(call), sql`(${voiceCalls.providerCallId} IS NULL OR ${voiceCalls.providerCallId} = ${providerCallId})`);

/**
 * Holds a call for the agency's calling hours: `scheduled` until `opening` (its new due time,
 * shown as `dispatch_at`), when the cron queues it again, with its `call.updated` event. True
 * when `where` still matched.
 */
const holdForWindow = (db: Db, call: { id: string; agencyId: string }, where: SQL | undefined, opening: number, now: string) =>
  changeCall(db, {
    call,
    where,
    set: { status: "scheduled", dueAt: isoAt(opening), dispatchAt: isoAt(opening), enqueuedAt: null, startedAt: null, updatedAt: now },
    type: "call.updated",
  });

/** Puts a call whose dial failed back to `queued`, due again after the backoff, with its `call.updated` event. */
const releaseForRetry = (db: Db, call: VoiceCallRow, retryAt: number, now: string) =>
  changeCall(db, {
    call,
    where: ours(call),
    set: { status: "queued", dueAt: isoAt(retryAt), enqueuedAt: now, startedAt: null, updatedAt: now },
    type: "call.updated",
  });

/** Ends a call as `failed` without a charge, with its `call.failed` event. */
async function failClaimed(db: Db, call: VoiceCallRow, reason: string, now: string) {
  await changeCall(db, {
    call,
    where: ours(call),
    set: { status: "failed", endedReason: reason, startedAt: null, endedAt: now, durationSeconds: 0, costCents: 0, updatedAt: now },
    type: "call.failed",
  });
}

/** `text` cut to at most `max` UTF-16 code units, never inside a surrogate pair. */
function cut(text: string, max: number) {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end);
}

/** A provider's summary of a call, within the bound the API documents. */
export const callSummaryText = (summary: string) => cut(summary, MAX_CALL_SUMMARY_LENGTH);

/**
 * Records how the call ended (with its `call.completed` or `call.failed` event) and, for a
 * completed call, debits the wallet, all in one batch: the debit statements read the row this
 * batch just completed, and the ledger's unique index makes a second debit of the same call
 * impossible (see callDebitStatements).
 */
export async function completeCall(db: Db, call: VoiceCallRow, providerCallId: string, outcome: CallOutcome, now: string) {
  const rate = (await getWallet(db, call.agencyId))?.ratePerMinuteCents ?? DEFAULT_RATE_PER_MINUTE_CENTS;
  // The provider's report is kept within the bounds the API documents. No call outlasts the
  // longest maximum a provider is told to hang up at: a longer one is a clock error, not billed.
  const durationSeconds = Math.min(outcome.durationSeconds, MAX_CALL_DURATION_SECONDS);
  const cost = outcome.status === "completed" ? callCostCents(durationSeconds, rate) : 0;
  const [updated] = await commit(db, [
    db
      .update(voiceCalls)
      .set({
        status: outcome.status,
        endedReason: cut(outcome.endedReason, MAX_ENDED_REASON_LENGTH),
        providerCallId,
        startedAt: outcome.startedAt,
        endedAt: outcome.endedAt,
        durationSeconds,
        summary: outcome.summary === null ? null : callSummaryText(outcome.summary),
        costCents: cost,
        updatedAt: now,
      })
      .where(oursAs(call, providerCallId))
      .returning({ id: voiceCalls.id }),
    callEvent(db, call.agencyId, call.id, outcome.status === "completed" ? "call.completed" : "call.failed", { ifChanged: true }),
    ...callDebitStatements(db, call.agencyId, call.id, now),
  ]);
  return updated.length > 0;
}

/** A column of the call, as a scalar subquery, so reads in one batch need not wait for the call's row. */
const ofCall = (callId: string, column: AnyColumn) => sql`(SELECT ${sql.identifier(column.name)} FROM ${voiceCalls} WHERE ${voiceCalls.id} = ${callId})`;

/** The agent and the caller id of a call, as two queries for a `commit` batch. */
const dialContextQueries = (db: Db, callId: string) =>
  [
    db
      .select()
      .from(voiceAgents)
      .where(and(eq(voiceAgents.id, ofCall(callId, voiceCalls.agentId)), eq(voiceAgents.agencyId, ofCall(callId, voiceCalls.agencyId)))),
    db
      .select()
      .from(voicePhoneNumbers)
      .where(
        and(
          eq(voicePhoneNumbers.id, ofCall(callId, voiceCalls.phoneNumberId)),
          eq(voicePhoneNumbers.agencyId, ofCall(callId, voiceCalls.agencyId)),
        ),
      ),
  ] as const;

/** What the provider is told about a claimed call: who, from where, and the voice settings recorded at the claim. */
function dialRequestOf(
  call: VoiceCallRow,
  agencyName: string | null,
  agent: VoiceAgentRow | undefined,
  number: VoicePhoneNumberRow | undefined,
  now: string,
): DialRequest {
  return {
    callId: call.id,
    agencyId: call.agencyId,
    agencyName,
    phone: call.phone,
    contactName: call.contactName,
    agent: agent
      ? { id: agent.id, name: agent.name, providerAgentId: agent.providerAgentId }
      : { id: call.agentId ?? "", name: "The agent", providerAgentId: null },
    fromNumber: number ? { id: number.id, number: number.number, providerNumberId: number.providerNumberId } : null,
    attempt: call.attempts,
    maxDurationSeconds: call.maxDurationSeconds ?? MAX_CALL_DURATION_SECONDS,
    voicemailBehavior: call.voicemailBehavior ?? DEFAULT_SETTINGS.voice.voicemail_behavior,
    now,
  };
}

/**
 * A `dial` message. The agency's calling hours are checked first, at the moment of dialing
 * (settings may have changed since the call was created): outside them the call is held until
 * the next opening instead. Then the call is claimed, placed and recorded. A provider failure
 * puts the call back to `queued` (or holds it, when the retry would fall outside the calling
 * hours) and asks for a redelivery after an exponential backoff; after the last attempt (or a
 * failure retrying cannot fix) the call ends `failed`, never charged.
 */
export async function dialCall(deps: DispatchDeps, callId: string): Promise<DispatchResult> {
  const { db, provider, logger } = deps;
  const nowMs = deps.now ?? Date.now();
  const now = isoAt(nowMs);
  const [found, settingsRows] = await commit(db, [
    db.select({ status: voiceCalls.status, agencyId: voiceCalls.agencyId }).from(voiceCalls).where(eq(voiceCalls.id, callId)),
    agencySettingsQuery(db, ofCall(callId, voiceCalls.agencyId)),
  ]);
  const queued = found[0];
  if (queued?.status !== "queued") return { action: "ack", outcome: "not-queued" };
  const settings = effectiveSettings(settingsRows[0]);
  const window = callingWindowOf(settings);
  const opening = openingAtOrAfter(window, nowMs) ?? nowMs;
  if (opening > nowMs) {
    const held = await holdForWindow(db, { id: callId, agencyId: queued.agencyId }, and(eq(voiceCalls.id, callId), eq(voiceCalls.status, "queued")), opening, now);
    return { action: "ack", outcome: held ? "held-for-calling-hours" : "not-queued" };
  }

  const [claimed, , agents, numbers] = await commit(db, [
    claim(db, callId, now, settings.voice),
    callEvent(db, queued.agencyId, callId, "call.started", { ifChanged: true }),
    ...dialContextQueries(db, callId),
  ]);
  const call = claimed[0];
  if (!call) return { action: "ack", outcome: "not-queued" };
  const agent = agents[0];
  if (!agent) {
    await failClaimed(db, call, endedReasons.dialFailed, now);
    return { action: "ack", outcome: "failed" };
  }

  let state;
  try {
    state = await provider.startCall(dialRequestOf(call, settingsRows[0]?.name ?? null, agent, numbers[0], now));
  } catch (error) {
    const retryable = !(error instanceof ProviderError) || error.retryable;
    logger.warn("voice call dial failed", { call_id: call.id, attempt: call.attempts, retryable, error: (error as Error).message });
    if (retryable && call.attempts < MAX_DIAL_ATTEMPTS) {
      const delaySeconds = retryDelaySeconds(call.attempts);
      const retryAt = nowMs + delaySeconds * 1000;
      const retryOpening = openingAtOrAfter(window, retryAt) ?? retryAt;
      if (retryOpening > retryAt) {
        const held = await holdForWindow(db, call, ours(call), retryOpening, now);
        return { action: "ack", outcome: held ? "retry-held-for-calling-hours" : "changed" };
      }
      if (await releaseForRetry(db, call, retryAt, now)) return { action: "retry", delaySeconds, outcome: "retry" };
      return { action: "ack", outcome: "changed" };
    }
    await failClaimed(db, call, endedReasons.dialFailed, now);
    return { action: "ack", outcome: "failed" };
  }
  return recordState(deps, call, state, now);
}

/**
 * What the provider says of a call this attempt placed, from a poll or from the provider's own
 * message (src/domain/voice-ai/call-reports.ts): an ended call is completed (completeCall), a
 * live one keeps its provider call id and the time it was last heard of. Both writes are
 * conditional on the call being still this attempt's and `in-progress`, so whichever of a
 * poll, a status update and a report comes first applies, and a late "still in progress"
 * never reopens an ended call. True when it changed the call.
 */
export async function applyProviderState(db: Db, call: VoiceCallRow, state: ProviderCallState, now: string): Promise<boolean> {
  if (state.state === "ended") return completeCall(db, call, state.providerCallId, state.outcome, now);
  // No public field changes, so no event; `updated_at` of an `in-progress` call is when it was
  // last heard of, which the sweep's re-poll reads (its claim set it at the dial).
  const heard = await db
    .update(voiceCalls)
    .set({ providerCallId: state.providerCallId, updatedAt: now })
    .where(oursAs(call, state.providerCallId))
    .returning({ id: voiceCalls.id });
  return heard.length > 0;
}

/** Completes a call the provider reports ended, or records it and polls again later. */
async function recordState(deps: DispatchDeps, call: VoiceCallRow, state: ProviderCallState, now: string): Promise<DispatchResult> {
  await applyProviderState(deps.db, call, state, now);
  if (state.state === "ended") return { action: "ack", outcome: state.outcome.status };
  await sendPoll(deps.queue, call, state.pollAfterSeconds);
  return { action: "ack", outcome: "in-progress" };
}

/** A `poll` message: ask the provider about an `in-progress` call, complete it once it ended. */
export async function pollCall(deps: DispatchDeps, callId: string): Promise<DispatchResult> {
  const { db, provider, logger } = deps;
  const now = isoAt(deps.now ?? Date.now());
  const [calls, agencyRows, agents, numbers] = await commit(db, [
    db.select().from(voiceCalls).where(eq(voiceCalls.id, callId)),
    db.select({ name: agencies.name }).from(agencies).where(eq(agencies.id, ofCall(callId, voiceCalls.agencyId))),
    ...dialContextQueries(db, callId),
  ]);
  const call = calls[0];
  if (!call || call.status !== "in-progress" || !call.providerCallId || !call.startedAt) return { action: "ack", outcome: "not-in-progress" };
  let state;
  try {
    const request = dialRequestOf(call, agencyRows[0]?.name ?? null, agents[0], numbers[0], now);
    state = await provider.getCall({ ...request, providerCallId: call.providerCallId, startedAt: call.startedAt });
  } catch (error) {
    const retryable = !(error instanceof ProviderError) || error.retryable;
    logger.warn("voice call poll failed", { call_id: call.id, retryable, error: (error as Error).message });
    // Not retryable means the provider does not know the call; the sweep closes it in time.
    if (retryable) await sendPoll(deps.queue, call, POLL_INTERVAL_SECONDS);
    return { action: "ack", outcome: "poll-failed" };
  }
  return recordState(deps, call, state, now);
}

/**
 * A message that exhausted the queue's retries (the consumer kept crashing) lands in the
 * dead-letter queue: a call still waiting to be dialed ends `failed` there, uncharged, with its
 * `call.failed` event. The call's agency is read first (its event names it); a rare path.
 */
export async function failUndialed(db: Db, callId: string, now = Date.now()) {
  const at = isoAt(now);
  const call = await db.select({ agencyId: voiceCalls.agencyId }).from(voiceCalls).where(eq(voiceCalls.id, callId)).get();
  if (!call) return false;
  return changeCall(db, {
    call: { id: callId, agencyId: call.agencyId },
    where: eq(voiceCalls.status, "queued"),
    set: { status: "failed", endedReason: endedReasons.dialFailed, endedAt: at, durationSeconds: 0, costCents: 0, updatedAt: at },
    type: "call.failed",
  });
}

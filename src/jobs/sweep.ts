import { and, asc, eq, inArray, isNotNull, isNull, lte, not, or, sql } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { voiceCalls } from "@/db/schema";
import { changeCalls, type CallChange } from "@/domain/voice-ai/calls.repository";
import {
  CRON_LOOKAHEAD_SECONDS,
  DISPATCH_TIMEOUT_SECONDS,
  endedReasons,
  MAX_CALL_DURATION_SECONDS,
  REENQUEUE_AFTER_SECONDS,
  STUCK_GRACE_SECONDS,
  SWEEP_LIMIT,
  type CallMessage,
} from "@/lib/queues/call-message";
import { sendDials, sendPoll, type DueCall } from "@/lib/queues/enqueue-calls";
import { commit } from "@/db/outbox";

export interface SweepReport {
  closed: number;
  promoted: number;
  reenqueued: number;
  polled: number;
}

/**
 * An `in-progress` call past its maximum duration (the agency's `voice.max_call_minutes` when
 * it was dialed) plus the grace period, at `at`: the instant is computed in SQL from the row.
 */
const pastMaxDuration = (at: string) => sql`(
  ${voiceCalls.startedAt} IS NULL OR strftime('%Y-%m-%dT%H:%M:%fZ', ${voiceCalls.startedAt},
    '+' || (coalesce(${voiceCalls.maxDurationSeconds}, ${MAX_CALL_DURATION_SECONDS}) + ${STUCK_GRACE_SECONDS}) || ' seconds') <= ${at})`;

/** At most SWEEP_LIMIT ids matching `where`, oldest due first (UPDATE ... LIMIT is not in D1's SQLite). */
const batchOf = (db: Db, where: ReturnType<typeof and>) =>
  db.select({ id: voiceCalls.id }).from(voiceCalls).where(where).orderBy(asc(voiceCalls.dueAt)).limit(SWEEP_LIMIT);

/** Like batchOf, with each call's agency (a call's event names it). */
const candidatesOf = (db: Db, where: ReturnType<typeof and>) =>
  db.select({ id: voiceCalls.id, agencyId: voiceCalls.agencyId }).from(voiceCalls).where(where).orderBy(asc(voiceCalls.dueAt)).limit(SWEEP_LIMIT);

/**
 * The every-minute sweep, with `now` the cron's scheduled time:
 * 1. closes calls that can no longer finish: `queued` and not dialed 40 minutes after their due
 *    time (`dispatch-timed-out`), `in-progress` past their maximum duration plus a grace period
 *    (`exceeded-max-duration`); both `failed`, never charged, each with its `call.failed` event;
 * 2. enqueues `scheduled` calls that fall due before the next run, each with its delay and its
 *    `call.updated` event (now `queued`);
 * 3. re-enqueues `queued` calls that are due but were never sent, or whose message got lost
 *    (bookkeeping: no public field changes, no event);
 * 4. re-polls `in-progress` calls whose provider has not been asked for a while.
 * Every step is a conditional UPDATE whose RETURNING rows are what gets sent, so two sweeps
 * running at once do not double-send, and a duplicate message is harmless anyway (the claim).
 */
export async function sweepCalls(db: Db, queue: Queue<CallMessage>, now: number): Promise<SweepReport> {
  const at = isoAt(now);
  const dispatchGiveUpBefore = isoAt(now - DISPATCH_TIMEOUT_SECONDS * 1000);
  const staleBefore = isoAt(now - REENQUEUE_AFTER_SECONDS * 1000);

  // One read finds the calls to close and to promote, then each changes with its event (see
  // changeCalls): two sweeps running at once change, and record, each call once.
  // Calls of an agency that is moving wait for the sweep of its new shard.
  const movable = notFrozen(voiceCalls.agencyId);
  const timedOut = and(eq(voiceCalls.status, "queued"), lte(voiceCalls.dueAt, dispatchGiveUpBefore), movable);
  const overrun = and(eq(voiceCalls.status, "in-progress"), pastMaxDuration(at), movable);
  const dueSoon = and(eq(voiceCalls.status, "scheduled"), lte(voiceCalls.dueAt, isoAt(now + CRON_LOOKAHEAD_SECONDS * 1000)), movable);
  const [timedOutCalls, overrunCalls, dueCalls] = await commit(db, [candidatesOf(db, timedOut), candidatesOf(db, overrun), candidatesOf(db, dueSoon)]);
  const changesOf = (calls: CallChange["call"][], change: Omit<CallChange, "call">) => calls.map((call) => ({ call, ...change }));
  const closed = await changeCalls(db, [
    ...changesOf(timedOutCalls, {
      where: timedOut,
      set: { status: "failed", endedReason: endedReasons.dispatchTimedOut, endedAt: at, durationSeconds: 0, costCents: 0, updatedAt: at },
      type: "call.failed",
    }),
    ...changesOf(overrunCalls, {
      where: overrun,
      set: { status: "failed", endedReason: endedReasons.exceededMaxDuration, endedAt: at, costCents: 0, updatedAt: at },
      type: "call.failed",
    }),
  ]);

  const promoted = await changeCalls(db, changesOf(dueCalls, { where: dueSoon, set: { status: "queued", enqueuedAt: at, updatedAt: at }, type: "call.updated" }));
  await sendOrRelease(db, queue, promoted, now);

  const stuck = and(
    eq(voiceCalls.status, "queued"),
    or(
      and(isNull(voiceCalls.enqueuedAt), lte(voiceCalls.dueAt, isoAt(now + CRON_LOOKAHEAD_SECONDS * 1000))),
      and(lte(voiceCalls.dueAt, staleBefore), lte(voiceCalls.enqueuedAt, staleBefore)),
    ),
    movable,
  );
  // Bookkeeping only (`enqueued_at` is not public): `updated_at` stays, and no event.
  const reenqueued = await db
    .update(voiceCalls)
    .set({ enqueuedAt: at })
    .where(and(stuck, inArray(voiceCalls.id, batchOf(db, stuck))))
    .returning({ id: voiceCalls.id, agencyId: voiceCalls.agencyId, dueAt: voiceCalls.dueAt });
  await sendOrRelease(db, queue, reenqueued, now);

  // `updated_at` of an `in-progress` call is when it was last polled (here or by the consumer).
  const unpolled = and(
    eq(voiceCalls.status, "in-progress"),
    isNotNull(voiceCalls.providerCallId),
    lte(voiceCalls.updatedAt, staleBefore),
    not(pastMaxDuration(at)),
    movable,
  );
  const polled = await db
    .update(voiceCalls)
    .set({ updatedAt: at })
    .where(and(unpolled, inArray(voiceCalls.id, batchOf(db, unpolled))))
    .returning({ id: voiceCalls.id, agencyId: voiceCalls.agencyId });
  for (const call of polled) await sendPoll(queue, call, 0);

  return {
    closed: closed.length,
    promoted: promoted.length,
    reenqueued: reenqueued.length,
    polled: polled.length,
  };
}

/** Sends dial messages; when the queue refuses, clears `enqueued_at` so the next run tries again. */
async function sendOrRelease(db: Db, queue: Queue<CallMessage>, calls: DueCall[], now: number) {
  if (calls.length === 0) return;
  try {
    await sendDials(queue, calls, now);
  } catch (error) {
    // D1 binds at most 100 parameters per statement.
    for (let i = 0; i < calls.length; i += 90) {
      const ids = calls.slice(i, i + 90).map((c) => c.id);
      await db.update(voiceCalls).set({ enqueuedAt: null }).where(and(eq(voiceCalls.status, "queued"), inArray(voiceCalls.id, ids)));
    }
    throw error;
  }
}

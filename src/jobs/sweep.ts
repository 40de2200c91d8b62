import type { Db } from "@/db/client";
import {
  callsToSettle,
  claimCallsToPoll,
  claimCallsToResend,
  failUnfinishableCalls,
  queueDueCalls,
  releaseUnsentCalls,
} from "@/domain/voice-ai/call-sweep.repository";
import type { CallMessage } from "@/lib/queues/call-message";
import { sendDials, sendPoll, type DueCall } from "@/lib/queues/enqueue-calls";

export interface SweepReport {
  closed: number;
  promoted: number;
  reenqueued: number;
  polled: number;
}

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
  // One read finds the calls to close and to promote, then each changes with its event (see
  // changeCalls): two sweeps running at once change, and record, each call once.
  const settle = await callsToSettle(db, now);
  const closed = await failUnfinishableCalls(db, settle, now);

  const promoted = await queueDueCalls(db, settle.dueSoon, now);
  await sendOrRelease(db, queue, promoted, now);

  const reenqueued = await claimCallsToResend(db, now);
  await sendOrRelease(db, queue, reenqueued, now);

  const polled = await claimCallsToPoll(db, now);
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
    await releaseUnsentCalls(db, calls);
    throw error;
  }
}

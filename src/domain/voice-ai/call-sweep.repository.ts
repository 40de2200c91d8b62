import { and, asc, eq, inArray, isNotNull, isNull, lte, not, or, sql } from "drizzle-orm";
import { isoAt } from "@/lib/time";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { voiceCalls } from "@/db/schema";
import { changeCalls, type CallChange } from "./calls.repository";
import {
  CRON_LOOKAHEAD_SECONDS,
  DISPATCH_TIMEOUT_SECONDS,
  endedReasons,
  MAX_CALL_DURATION_SECONDS,
  REENQUEUE_AFTER_SECONDS,
  STUCK_GRACE_SECONDS,
  SWEEP_LIMIT,
} from "@/lib/queues/call-message";
import { commit } from "@/db/outbox";

/**
 * The statements of the every-minute call sweep (docs/decisions/voice-ai-dispatch.md, "Every
 * call ends"), each as of `now`, the cron's scheduled time. Every change is conditional and
 * returns the rows it changed, which are what the sweep sends: two sweeps running at once
 * change, record and send each call once.
 */

type SweptCall = CallChange["call"];

/**
 * An `in-progress` call past its maximum duration (the agency's `voice.max_call_minutes` when
 * it was dialed) plus the grace period, at `at`: the instant is computed in SQL from the row.
 */
const pastMaxDuration = (at: string) => sql`(
  ${voiceCalls.startedAt} IS NULL OR strftime('%Y-%m-%dT%H:%M:%fZ', ${voiceCalls.startedAt},
    '+' || (coalesce(${voiceCalls.maxDurationSeconds}, ${MAX_CALL_DURATION_SECONDS}) + ${STUCK_GRACE_SECONDS}) || ' seconds') <= ${at})`;

/** Calls of an agency that is moving wait for the sweep of its new shard. */
const movable = () => notFrozen(voiceCalls.agencyId);

/** `queued` and not dialed long after their due time: they will not be dialed any more. */
const timedOut = (now: number) =>
  and(eq(voiceCalls.status, "queued"), lte(voiceCalls.dueAt, isoAt(now - DISPATCH_TIMEOUT_SECONDS * 1000)), movable());

/** `in-progress` past their maximum duration plus a grace period: no provider will report them. */
const overrun = (now: number) => and(eq(voiceCalls.status, "in-progress"), pastMaxDuration(isoAt(now)), movable());

/** `scheduled` calls that fall due before the next run. */
const dueSoon = (now: number) =>
  and(eq(voiceCalls.status, "scheduled"), lte(voiceCalls.dueAt, isoAt(now + CRON_LOOKAHEAD_SECONDS * 1000)), movable());

/** At most SWEEP_LIMIT ids matching `where`, oldest due first (UPDATE ... LIMIT is not in D1's SQLite). */
const batchOf = (db: Db, where: ReturnType<typeof and>) =>
  db.select({ id: voiceCalls.id }).from(voiceCalls).where(where).orderBy(asc(voiceCalls.dueAt)).limit(SWEEP_LIMIT);

/** Like batchOf, with each call's agency (a call's event names it). */
const candidatesOf = (db: Db, where: ReturnType<typeof and>) =>
  db.select({ id: voiceCalls.id, agencyId: voiceCalls.agencyId }).from(voiceCalls).where(where).orderBy(asc(voiceCalls.dueAt)).limit(SWEEP_LIMIT);

/** The calls to close (`timedOut`, `overrun`) and to promote (`dueSoon`), read in one batch. */
export async function callsToSettle(db: Db, now: number) {
  const [timedOutCalls, overrunCalls, dueCalls] = await commit(db, [candidatesOf(db, timedOut(now)), candidatesOf(db, overrun(now)), candidatesOf(db, dueSoon(now))]);
  return { timedOut: timedOutCalls, overrun: overrunCalls, dueSoon: dueCalls };
}

const changesOf = (calls: SweptCall[], change: Omit<CallChange, "call">) => calls.map((call) => ({ call, ...change }));

/**
 * Closes calls that can no longer finish, if they still match what `callsToSettle` read them
 * for: `failed`, never charged, each with its `call.failed` event (see changeCalls). Returns
 * the calls closed.
 */
export function failUnfinishableCalls(db: Db, calls: { timedOut: SweptCall[]; overrun: SweptCall[] }, now: number) {
  const at = isoAt(now);
  return changeCalls(db, [
    ...changesOf(calls.timedOut, {
      where: timedOut(now),
      set: { status: "failed", endedReason: endedReasons.dispatchTimedOut, endedAt: at, durationSeconds: 0, costCents: 0, updatedAt: at },
      type: "call.failed",
    }),
    ...changesOf(calls.overrun, {
      where: overrun(now),
      set: { status: "failed", endedReason: endedReasons.exceededMaxDuration, endedAt: at, costCents: 0, updatedAt: at },
      type: "call.failed",
    }),
  ]);
}

/** Promotes due `scheduled` calls to `queued`, each with its `call.updated` event. Returns the calls promoted, to send. */
export function queueDueCalls(db: Db, calls: SweptCall[], now: number) {
  const at = isoAt(now);
  return changeCalls(db, changesOf(calls, { where: dueSoon(now), set: { status: "queued", enqueuedAt: at, updatedAt: at }, type: "call.updated" }));
}

/**
 * Marks enqueued the `queued` calls that are due but were never sent, or whose message got
 * lost, and returns them, to send again. Bookkeeping only (`enqueued_at` is not public):
 * `updated_at` stays, and no event.
 */
export function claimCallsToResend(db: Db, now: number) {
  const at = isoAt(now);
  const staleBefore = isoAt(now - REENQUEUE_AFTER_SECONDS * 1000);
  const stuck = and(
    eq(voiceCalls.status, "queued"),
    or(
      and(isNull(voiceCalls.enqueuedAt), lte(voiceCalls.dueAt, isoAt(now + CRON_LOOKAHEAD_SECONDS * 1000))),
      and(lte(voiceCalls.dueAt, staleBefore), lte(voiceCalls.enqueuedAt, staleBefore)),
    ),
    movable(),
  );
  return db
    .update(voiceCalls)
    .set({ enqueuedAt: at })
    .where(and(stuck, inArray(voiceCalls.id, batchOf(db, stuck))))
    .returning({ id: voiceCalls.id, agencyId: voiceCalls.agencyId, dueAt: voiceCalls.dueAt });
}

/**
 * Marks polled the `in-progress` calls whose provider has not been asked for a while, and
 * returns them, to poll. `updated_at` of an `in-progress` call is when it was last polled (here
 * or by the consumer).
 */
export function claimCallsToPoll(db: Db, now: number) {
  const at = isoAt(now);
  const unpolled = and(
    eq(voiceCalls.status, "in-progress"),
    isNotNull(voiceCalls.providerCallId),
    lte(voiceCalls.updatedAt, isoAt(now - REENQUEUE_AFTER_SECONDS * 1000)),
    not(pastMaxDuration(at)),
    movable(),
  );
  return db
    .update(voiceCalls)
    .set({ updatedAt: at })
    .where(and(unpolled, inArray(voiceCalls.id, batchOf(db, unpolled))))
    .returning({ id: voiceCalls.id, agencyId: voiceCalls.agencyId });
}

/** Clears `enqueued_at` of `queued` calls whose dial messages the queue refused, so the next sweep sends them. */
export async function releaseUnsentCalls(db: Db, calls: readonly { id: string }[]) {
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < calls.length; i += 90) {
    const ids = calls.slice(i, i + 90).map((c) => c.id);
    await db.update(voiceCalls).set({ enqueuedAt: null }).where(and(eq(voiceCalls.status, "queued"), inArray(voiceCalls.id, ids)));
  }
}

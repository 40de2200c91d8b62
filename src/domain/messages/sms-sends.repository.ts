import { and, asc, eq, inArray, isNotNull, lte, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { notFrozen } from "@/db/agency-copy";
import { commit } from "@/db/outbox";
import { messages } from "@/db/schema";
import { isoAt } from "@/lib/time";
import { ABANDON_AFTER_SECONDS, ATTEMPT_LEASE_SECONDS, EARLY_ARRIVAL_SECONDS, RESEND_AFTER_SECONDS, SMS_SWEEP_LIMIT } from "@/lib/queues/sms-message";
import { deliveryError, deliveryStatements, messageUpdatedEvent, ofAgency, type MessageRow } from "./messages.repository";
import type { ProviderMessage } from "./sms-provider";

/**
 * The bookkeeping of sending outbound SMS through the `sms-sends` queue (docs/decisions/real-providers.md,
 * "Outbound SMS through a queue"). Each attempt is claimed with one conditional UPDATE, so of two
 * consumers holding the same queue message only one sends; each answer is recorded only by the
 * attempt that still holds the message (its attempt number), with the `message.updated` event of
 * a status change in the same batch.
 */

/**
 * An outbound SMS still waiting to be sent. The status is written as a literal, not a bound
 * parameter: only then can SQLite use the partial index `messages_send_due_idx` (its WHERE must
 * follow from the query's), which keeps the sweep's search to the messages still waiting.
 */
const waiting = () =>
  and(eq(messages.direction, "outbound"), eq(messages.channel, "sms"), sql`${messages.deliveryStatus} = 'queued'`, isNotNull(messages.sendNextAttemptAt));

/** The message as this attempt claimed it: still ours only while no later attempt has claimed it. */
const ours = (claimed: Pick<MessageRow, "id" | "agencyId" | "sendAttempts">) => and(ofAgency(claimed.agencyId, claimed.id), eq(messages.sendAttempts, claimed.sendAttempts));

/** Nothing running, nothing pending: what a message looks like once its send is settled. */
const SETTLED = { sendInFlight: false, sendLookupNeeded: false, sendNextAttemptAt: null } as const;

/**
 * Claims the next attempt of a waiting SMS that is due (or whose previous attempt's lease ran
 * out): counts it, notes the first attempt's time, and leases the message for the attempt (its
 * next attempt moves to the lease's end). An earlier attempt that never reported back (its
 * consumer died) may have reached the provider, so the claim asks for a look-up first. Returns
 * the message as claimed, or undefined when it is not waiting, not due, or held by a running
 * attempt.
 */
export async function claimSendAttempt(db: Db, agencyId: string, messageId: string, now: number): Promise<MessageRow | undefined> {
  const at = isoAt(now);
  const [claimed] = await db
    .update(messages)
    .set({
      sendAttempts: sql`${messages.sendAttempts} + 1`,
      sendFirstAttemptAt: sql`coalesce(${messages.sendFirstAttemptAt}, ${at})`,
      sendLookupNeeded: sql`(${messages.sendLookupNeeded} OR ${messages.sendInFlight})`,
      sendInFlight: true,
      sendNextAttemptAt: isoAt(now + ATTEMPT_LEASE_SECONDS * 1000),
    })
    .where(and(ofAgency(agencyId, messageId), waiting(), lte(messages.sendNextAttemptAt, isoAt(now + EARLY_ARRIVAL_SECONDS * 1000))))
    .returning();
  return claimed;
}

/**
 * The provider has the message (it took this attempt, or a look-up found an earlier one): its
 * id and status are recorded (`sent` at least: the provider's own `queued` means it took it),
 * with the `message.updated` event, and the attempt's lease is released. The status moves even
 * if a later attempt holds the message now: the provider having it is a fact. Returns the
 * message as it is afterwards.
 */
export async function recordProviderHas(db: Db, claimed: MessageRow, found: ProviderMessage) {
  const status = found.status === "queued" ? "sent" : found.status;
  const [, , , , current] = await commit(db, [
    ...deliveryStatements(db, claimed.agencyId, claimed.id, { status, providerMessageId: found.providerMessageId, error: found.error }),
    db.update(messages).set(SETTLED).where(ours(claimed)),
    db.select().from(messages).where(ofAgency(claimed.agencyId, claimed.id)),
  ]);
  return current[0];
}

/**
 * Ends a waiting SMS `failed` with `error` in `delivery_error`, with its `message.updated` event,
 * if this attempt still holds it. True when it did.
 */
export async function recordSendFailed(db: Db, claimed: MessageRow, error: string) {
  const [failed] = await commit(db, [
    db
      .update(messages)
      .set({ deliveryStatus: "failed", deliveryError: deliveryError(error), ...SETTLED })
      .where(and(ours(claimed), eq(messages.deliveryStatus, "queued")))
      .returning({ id: messages.id }),
    messageUpdatedEvent(db, claimed.agencyId, claimed.id),
  ]);
  return failed.length > 0;
}

/**
 * Releases the attempt for another at `dueAt`, noting whether that one must look the message up
 * at the provider first. Bookkeeping only (no public field changes, no event). True when this
 * attempt still held a message still waiting; one a status callback settled meanwhile is only
 * released.
 */
export async function scheduleNextAttempt(db: Db, claimed: MessageRow, dueAt: number, lookupNeeded: boolean) {
  const stillQueued = sql`${messages.deliveryStatus} = 'queued'`;
  const [row] = await db
    .update(messages)
    .set({
      sendInFlight: false,
      sendLookupNeeded: sql`CASE WHEN ${stillQueued} THEN ${lookupNeeded ? 1 : 0} ELSE 0 END`,
      sendNextAttemptAt: sql`CASE WHEN ${stillQueued} THEN ${isoAt(dueAt)} ELSE NULL END`,
    })
    .where(ours(claimed))
    .returning({ status: messages.deliveryStatus });
  return row?.status === "queued";
}

/**
 * Which of these provider message ids the agency has recorded on another of its messages: a
 * look-up may find a text an earlier message sent with the same body, which is not this one's.
 */
export async function providerIdsRecorded(db: Db, agencyId: string, messageId: string, providerMessageIds: readonly string[]) {
  if (providerMessageIds.length === 0) return new Set<string>();
  const rows = await db
    .select({ id: messages.providerMessageId })
    .from(messages)
    // D1 binds at most 100 parameters; a look-up answers at most a few pages of 50.
    .where(and(eq(messages.agencyId, agencyId), ne(messages.id, messageId), inArray(messages.providerMessageId, providerMessageIds.slice(0, 90))));
  return new Set(rows.map((r) => r.id));
}

/** Sends of an agency that is moving wait for the sweep of its new shard. */
const movable = () => notFrozen(messages.agencyId);

/** At most SMS_SWEEP_LIMIT message ids matching `where`, longest due first (UPDATE ... LIMIT is not in D1's SQLite). */
const batchOf = (db: Db, where: SQL | undefined) =>
  db.select({ id: messages.id }).from(messages).where(where).orderBy(asc(messages.sendNextAttemptAt)).limit(SMS_SWEEP_LIMIT);

/**
 * Marks due now, and returns to enqueue again, the waiting SMS whose attempt has been due for a
 * while without one starting: the queue send after `POST /messages` or after a failed attempt
 * failed or was lost, or a consumer died mid-attempt (its lease ran out). Marked first,
 * conditionally, so two sweeps do not both send one; a duplicate queue message is harmless
 * anyway (the claim).
 */
export function claimLostSends(db: Db, now: number) {
  const lost = and(waiting(), lte(messages.sendNextAttemptAt, isoAt(now - RESEND_AFTER_SECONDS * 1000)), movable());
  return db
    .update(messages)
    .set({ sendNextAttemptAt: isoAt(now) })
    .where(and(lost, inArray(messages.id, batchOf(db, lost))))
    .returning({ id: messages.id, agencyId: messages.agencyId });
}

/**
 * Gives up the waiting SMS whose consumer kept dying: still `queued` long after the first attempt
 * (or after being stored, when none ever started) and no attempt running. Each ends `failed`
 * with its `message.updated` event. Returns how many.
 */
export async function abandonStuckSends(db: Db, now: number) {
  const at = isoAt(now);
  const stuck = and(
    waiting(),
    lte(sql`coalesce(${messages.sendFirstAttemptAt}, ${messages.createdAt})`, isoAt(now - ABANDON_AFTER_SECONDS * 1000)),
    lte(messages.sendNextAttemptAt, at),
    movable(),
  );
  const found = await db
    .select({ id: messages.id, agencyId: messages.agencyId, inFlight: messages.sendInFlight, lookupNeeded: messages.sendLookupNeeded })
    .from(messages)
    .where(stuck)
    .limit(50);
  let abandoned = 0;
  for (const message of found) {
    const why = message.inFlight || message.lookupNeeded
      ? "Not confirmed: our sending job could not finish it, and the provider may have received it"
      : "Not sent: our sending job could not finish it";
    const [changed] = await commit(db, [
      db
        .update(messages)
        .set({ deliveryStatus: "failed", deliveryError: why, ...SETTLED })
        .where(and(ofAgency(message.agencyId, message.id), stuck))
        .returning({ id: messages.id }),
      messageUpdatedEvent(db, message.agencyId, message.id),
    ]);
    abandoned += changed.length;
  }
  return abandoned;
}

import { and, eq, inArray, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "@/db/client";
import { listOrder, type PageWindow } from "@/db/list-order";
import { writeWithEvent } from "@/db/write-with-event";
import { voiceCalls, type CallStatus } from "@/db/schema";
import { newId } from "@/lib/ids";
import { maintainedCount } from "@/db/record-counts";
import { compiledQuery, countAll, readPage, rowDecoder } from "@/db/compiled-query";
import { eventStatement, type EventType } from "@/domain/events/events";
import { nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

export type VoiceCallRow = typeof voiceCalls.$inferSelect;

export const toPublicCall = (c: VoiceCallRow) => ({
  call_uuid: c.id,
  contact_uuid: c.contactId,
  contact_name: c.contactName,
  phone: c.phone,
  direction: "outbound" as const,
  status: c.status,
  ended_reason: c.endedReason,
  duration_seconds: c.durationSeconds,
  // Every call is created with an agent; the column is nullable only for calls of other origins.
  voice_agent_uuid: c.agentId ?? "",
  outbound_phone_number_uuid: c.phoneNumberId,
  scheduled_at: c.scheduledAt,
  dispatch_at: c.dispatchAt,
  started_at: c.startedAt,
  ended_at: c.endedAt,
  summary: c.summary,
  cost_cents: c.costCents,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

const ofAgency = (agencyId: string, callId: string) => and(eq(voiceCalls.id, callId.toLowerCase()), eq(voiceCalls.agencyId, agencyId));

/**
 * The event of a change to one call, for the change's batch (see eventStatement); with
 * `ifChanged` right after a write that is conditional on the call's status.
 */
export const callEvent = (db: Db, agencyId: string, callId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "call", table: voiceCalls, where: ofAgency(agencyId, callId), ...options });

/**
 * A conditional change of one call: `set`, if the call still matches `where`, recorded by an
 * event of `type`.
 */
export interface CallChange {
  call: { id: string; agencyId: string };
  where: SQL | undefined;
  set: SQLiteUpdateSetSource<typeof voiceCalls>;
  type: EventType;
}

/** Statements per batch when changing calls: two per call (its UPDATE and its event). */
const CHANGE_BATCH_STATEMENTS = 100;

/**
 * Applies each change with its event: one conditional UPDATE per call and the event right after
 * it in the same batch (`ifChanged`), so a call that someone else (a concurrent sweep, the
 * consumer, a partner) changed first gets neither. Returns the calls changed, with their due time.
 */
export async function changeCalls(db: Db, changes: CallChange[]) {
  const statements = changes.flatMap(({ call, where, set, type }) => [
    db
      .update(voiceCalls)
      .set(set)
      .where(and(eq(voiceCalls.id, call.id), where))
      .returning({ id: voiceCalls.id, agencyId: voiceCalls.agencyId, dueAt: voiceCalls.dueAt }),
    callEvent(db, call.agencyId, call.id, type, { ifChanged: true }),
  ]);
  const changed: { id: string; agencyId: string; dueAt: string }[] = [];
  for (let i = 0; i < statements.length; i += CHANGE_BATCH_STATEMENTS) {
    const [first, ...rest] = statements.slice(i, i + CHANGE_BATCH_STATEMENTS);
    if (!first) break;
    const results = await commit(db, [first, ...rest]);
    // Even places hold the UPDATEs' returned rows.
    results.forEach((rows, j) => {
      if (j % 2 === 0) changed.push(...(rows as { id: string; agencyId: string; dueAt: string }[]));
    });
  }
  return changed;
}

/** One call's change with its event (see changeCalls): true when it applied. */
export const changeCall = async (db: Db, change: CallChange) => (await changeCalls(db, [change])).length > 0;

export const getCall = (db: Db, agencyId: string, callId: string) => db.select().from(voiceCalls).where(ofAgency(agencyId, callId)).get();

export interface CallFilters {
  status?: CallStatus;
  contactId?: string;
}

const decodeCalls = rowDecoder(voiceCalls);
type CallListShape = `${"status" | ""}/${"contact" | ""}`;
type CallPageShape = `${CallListShape}/${"after" | ""}`;
export const callOrder = listOrder("desc", { createdAt: voiceCalls.createdAt, id: voiceCalls.id });
type CallListValues = { agencyId: string; status?: string; contactId?: string };
const callFilter = (shape: CallListShape) =>
  and(
    eq(voiceCalls.agencyId, sql.placeholder("agencyId")),
    shape.startsWith("status") ? eq(voiceCalls.status, sql.placeholder("status")) : undefined,
    shape.endsWith("contact") ? eq(voiceCalls.contactId, sql.placeholder("contactId")) : undefined,
  );
const callPage = compiledQuery<CallListValues & { read: number; offset: number }, CallPageShape>((qb, shape) =>
  qb
    .select()
    .from(voiceCalls)
    .where(and(callFilter(shape.slice(0, shape.lastIndexOf("/")) as CallListShape), shape.endsWith("/after") ? callOrder.placeholders() : undefined))
    .orderBy(...callOrder.orderBy)
    .limit(sql.placeholder("read"))
    .offset(sql.placeholder("offset")),
);
const callCount = compiledQuery<CallListValues, CallListShape>((qb, shape) =>
  shape === "/"
    ? // Without filters the total is the maintained count (record_counts), not a scan.
      maintainedCount(qb, "voice_calls")
    : qb.select({ total: countAll() }).from(voiceCalls).where(callFilter(shape)),
);

export function listCalls(db: Db, agencyId: string, filters: CallFilters, page: PageWindow) {
  const shape: CallListShape = `${filters.status ? "status" : ""}/${filters.contactId ? "contact" : ""}`;
  const values = { agencyId, status: filters.status, contactId: filters.contactId };
  const rows = callPage({ ...values, read: page.read, offset: page.offset, ...(page.after ? callOrder.bind(page.after) : {}) }, `${shape}/${page.after ? "after" : ""}`);
  return readPage(db, decodeCalls, rows, page.total ?? callCount(values, shape));
}

export interface NewCall {
  contactId: string | null;
  contactName: string | null;
  phone: string;
  agentId: string;
  phoneNumberId: string;
  status: "queued" | "scheduled";
  scheduledAt: string | null;
  dueAt: string;
  /** The next opening of the calling hours, for a call held until then; else null. */
  dispatchAt: string | null;
  /** Set when the call's dial message is sent right after the insert (see `releaseEnqueued`). */
  enqueuedAt: string | null;
}

export function newCallRow(agencyId: string, input: NewCall, now = nowIso()): VoiceCallRow {
  return {
    id: newId(),
    agencyId,
    ...input,
    direction: "outbound",
    endedReason: null,
    durationSeconds: null,
    attempts: 0,
    providerCallId: null,
    maxDurationSeconds: null,
    voicemailBehavior: null,
    startedAt: null,
    endedAt: null,
    summary: null,
    costCents: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The INSERT of a call, for a batch. `contactId` may be a subquery (a contact created in the
 * same batch, or the one that won a race for its phone); RETURNING says which contact it is.
 */
export const insertCallStatement = (db: Db, row: VoiceCallRow, contactId: string | SQL | null) =>
  db.insert(voiceCalls).values({ ...row, contactId }).returning({ contactId: voiceCalls.contactId });

/**
 * Clears `enqueued_at` of a queued call whose dial message could not be sent, so the cron
 * sends it when due (as it does for calls it promotes itself).
 */
export const releaseEnqueued = (db: Db, callId: string, enqueuedAt: string) =>
  db
    .update(voiceCalls)
    .set({ enqueuedAt: null })
    .where(and(eq(voiceCalls.id, callId), eq(voiceCalls.status, "queued"), eq(voiceCalls.enqueuedAt, enqueuedAt)));

/**
 * Cancels a call that has not been dialed. Conditional on the status, so a call the consumer
 * claimed a moment earlier is not canceled (and a canceled call is never claimed).
 * Returns undefined when the call is not scheduled or queued (any more).
 */
export const cancelCall = (db: Db, agencyId: string, callId: string) =>
  writeWithEvent(
    db,
    db
      .update(voiceCalls)
      .set({ status: "canceled", updatedAt: nowIso() })
      .where(and(ofAgency(agencyId, callId), inArray(voiceCalls.status, ["scheduled", "queued"])))
      .returning(),
    callEvent(db, agencyId, callId, "call.canceled", { ifChanged: true }),
  );

/** The agency's calls held for its calling hours (`scheduled` with a `dispatch_at`), and when each was due before. */
export const heldCalls = (db: Db, agencyId: string) =>
  db
    .select({ id: voiceCalls.id, scheduledAt: voiceCalls.scheduledAt, createdAt: voiceCalls.createdAt })
    .from(voiceCalls)
    .where(and(eq(voiceCalls.agencyId, agencyId), eq(voiceCalls.status, "scheduled"), isNotNull(voiceCalls.dispatchAt)));

/**
 * Moves held calls to a new opening, each with its `call.updated` event (see changeCalls).
 * Conditional on their still being held until another time, so a call the cron promoted (or a
 * partner canceled) in the meantime, or one already held until its new opening, is left alone
 * and gets no event.
 */
export async function moveHeldCalls(db: Db, agencyId: string, moves: { id: string; dispatchAt: string }[]) {
  const now = nowIso();
  await changeCalls(
    db,
    moves.map(({ id, dispatchAt }) => ({
      call: { id, agencyId },
      where: and(eq(voiceCalls.agencyId, agencyId), eq(voiceCalls.status, "scheduled"), isNotNull(voiceCalls.dispatchAt), ne(voiceCalls.dispatchAt, dispatchAt)),
      set: { dueAt: dispatchAt, dispatchAt, enqueuedAt: null, updatedAt: now },
      type: "call.updated" as const,
    })),
  );
}

import { and, count, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, readListPage, type PageWindow } from "@/db/list-order";
import { messages, type messageChannels, type messageDirections } from "@/db/schema";
import { eventStatement, type EventType } from "@/domain/events/events";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import type { DeliveryStatus } from "./sms-provider";
import { commit } from "@/db/outbox";
import { MAX_DELIVERY_ERROR_LENGTH } from "./messages.rules";

export type MessageRow = typeof messages.$inferSelect;
export type MessageChannel = (typeof messageChannels)[number];
export type MessageDirection = (typeof messageDirections)[number];

export const toPublicMessage = (m: MessageRow) => ({
  message_uuid: m.id,
  contact_uuid: m.contactId,
  channel: m.channel,
  direction: m.direction,
  body: m.body,
  delivery_status: m.deliveryStatus as DeliveryStatus | null,
  delivery_error: m.deliveryError,
  read_at: m.readAt,
  created_at: m.createdAt,
});

/** The condition selecting one message of the agency. */
export const ofAgency = (agencyId: string, messageId: string) => and(eq(messages.id, messageId.toLowerCase()), eq(messages.agencyId, agencyId));

/** The event of a change to one message, for the change's batch (see eventStatement). */
const messageEvent = (db: Db, agencyId: string, messageId: string, type: EventType, options: { ifChanged?: boolean } = {}) =>
  eventStatement(db, { agencyId, type, objectType: "message", table: messages, where: ofAgency(agencyId, messageId), ...options });

/** What storing a message means: an SMS received or sent, or a note added. */
const storedEventType = (direction: MessageDirection): EventType =>
  direction === "inbound" ? "message.received" : direction === "outbound" ? "message.sent" : "message.note_added";

export interface MessageFilters {
  contactId?: string;
  channel?: MessageChannel;
  unread?: boolean;
}

export const messageOrder = listOrder("desc", { createdAt: messages.createdAt, id: messages.id });

export function listMessages(db: Db, agencyId: string, filters: MessageFilters, page: PageWindow) {
  const where = and(
    eq(messages.agencyId, agencyId),
    filters.contactId !== undefined ? eq(messages.contactId, filters.contactId) : undefined,
    filters.channel !== undefined ? eq(messages.channel, filters.channel) : undefined,
    filters.unread === undefined ? undefined : filters.unread ? isNull(messages.readAt) : isNotNull(messages.readAt),
  );
  return readListPage(
    db,
    page,
    db.select().from(messages).where(messageOrder.where(page, where)).orderBy(...messageOrder.orderBy).limit(page.read).offset(page.offset),
    db.select({ total: count() }).from(messages).where(where),
  );
}

export interface NewMessage {
  contactId: string;
  channel: MessageChannel;
  direction: MessageDirection;
  body: string;
  deliveryStatus: DeliveryStatus | null;
  /** Inbound messages arrive unread (null); what the agency writes itself starts read. */
  read: boolean;
  /** For an outbound SMS to send: the number it goes to. Its first attempt is due at once. */
  sendTo?: string;
}

/** The columns of a message no send concerns (inbound, notes, what the operator records). */
const NOT_SENT = { toNumber: null, sendAttempts: 0, sendFirstAttemptAt: null, sendNextAttemptAt: null, sendInFlight: false, sendLookupNeeded: false } as const;

/**
 * Stores a message with its event (`message.received`, `message.sent` or `message.note_added`,
 * by direction), in one batch. An outbound SMS to send is stored `queued`, its first attempt due
 * now: the `sms-sends` consumer sends it (src/domain/messages/sms-attempt.ts).
 */
export async function createMessage(db: Db, agencyId: string, input: NewMessage) {
  const now = nowIso();
  const { read, sendTo, ...columns } = input;
  const send = sendTo === undefined ? NOT_SENT : { ...NOT_SENT, toNumber: sendTo, sendNextAttemptAt: now };
  const row: MessageRow = { id: newId(), agencyId, ...columns, ...send, providerMessageId: null, deliveryError: null, readAt: read ? now : null, createdAt: now };
  await commit(db, [db.insert(messages).values(row), messageEvent(db, agencyId, row.id, storedEventType(row.direction))]);
  return row;
}

/**
 * Marks a message read (keeping the first read time when it already was) or unread, with the
 * `message.read` / `message.unread` event only when its state changed; returns the message as
 * it is afterwards, undefined when the agency has no such message. One batch.
 */
async function setRead(db: Db, agencyId: string, messageId: string, read: boolean) {
  const [, , current] = await commit(db, [
    db
      .update(messages)
      .set({ readAt: read ? nowIso() : null })
      .where(and(ofAgency(agencyId, messageId), read ? isNull(messages.readAt) : isNotNull(messages.readAt))),
    messageEvent(db, agencyId, messageId, read ? "message.read" : "message.unread", { ifChanged: true }),
    db.select().from(messages).where(ofAgency(agencyId, messageId)),
  ]);
  return current[0];
}

export const markRead = (db: Db, agencyId: string, messageId: string) => setRead(db, agencyId, messageId, true);

export const markUnread = (db: Db, agencyId: string, messageId: string) => setRead(db, agencyId, messageId, false);

/** How far a delivery got: a report never moves a message back (callbacks can arrive out of order). */
const deliveryRank = (status: SQL | string) =>
  sql`CASE ${status} WHEN 'queued' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'failed' THEN 2 ELSE -1 END`;

export interface DeliveryReport {
  status: DeliveryStatus;
  providerMessageId: string | null;
  error?: string | null;
}

/** `error` cut to what `delivery_error` keeps. */
export const deliveryError = (error: string | null | undefined) => (error ?? "failed").slice(0, MAX_DELIVERY_ERROR_LENGTH);

/**
 * The statements that record what the provider says about an outbound SMS of the agency, for
 * the caller's batch: the provider's message id when the message has none yet (not a public
 * field, so no event), then the `delivery_status` only forward, with its `message.updated` event
 * when it moved (the second statement returns the row when it did). A report naming another
 * provider message id than the one stored changes nothing.
 */
export function deliveryStatements(db: Db, agencyId: string, messageId: string, report: DeliveryReport) {
  const outbound = and(ofAgency(agencyId, messageId), eq(messages.direction, "outbound"));
  const sameProviderMessage = report.providerMessageId
    ? sql`(${messages.providerMessageId} IS NULL OR ${messages.providerMessageId} = ${report.providerMessageId})`
    : undefined;
  return [
    db
      .update(messages)
      .set({ providerMessageId: report.providerMessageId })
      .where(and(outbound, isNull(messages.providerMessageId), report.providerMessageId ? undefined : sql`0`)),
    db
      .update(messages)
      // A message past `queued` has no send left to make: its send's bookkeeping is cleared with it.
      .set({
        deliveryStatus: report.status,
        deliveryError: report.status === "failed" ? deliveryError(report.error) : null,
        sendNextAttemptAt: null,
        sendInFlight: false,
        sendLookupNeeded: false,
      })
      .where(and(outbound, sameProviderMessage, sql`${deliveryRank(sql`${messages.deliveryStatus}`)} < ${deliveryRank(report.status)}`))
      .returning(),
    messageEvent(db, agencyId, messageId, "message.updated", { ifChanged: true }),
  ] as const;
}

/**
 * Records a later report about an outbound SMS (Twilio's StatusCallback, which may arrive before
 * the consumer records the send's own answer): see deliveryStatements. Returns the message as
 * it is afterwards (undefined for no such message) and whether its status moved. One batch.
 */
export async function recordDelivery(db: Db, agencyId: string, messageId: string, report: DeliveryReport) {
  const [, moved, , current] = await commit(db, [...deliveryStatements(db, agencyId, messageId, report), db.select().from(messages).where(ofAgency(agencyId, messageId))]);
  return { message: current[0], moved: moved.length > 0 };
}

/** One message of the agency, as stored (undefined when it has none). */
export const getMessage = (db: Db, agencyId: string, messageId: string) => db.select().from(messages).where(ofAgency(agencyId, messageId)).get();

/** The event of a change to one message of the agency, for the change's batch; written only if the statement before it changed the row. */
export const messageUpdatedEvent = (db: Db, agencyId: string, messageId: string) => messageEvent(db, agencyId, messageId, "message.updated", { ifChanged: true });

/**
 * The statements that store an inbound SMS once per provider message id (a provider sending it
 * again finds it stored: ON CONFLICT DO NOTHING on the unique id), with its `message.received`
 * event only when it was stored now; for the caller's batch, with the row they write. The
 * INSERT returns the row's id only when it stored it.
 */
export function storeInbound(db: Db, agencyId: string, input: { contactId: string; body: string; providerMessageId: string; createdAt?: string }) {
  const row: MessageRow = {
    id: newId(),
    agencyId,
    contactId: input.contactId,
    channel: "sms",
    direction: "inbound",
    body: input.body,
    deliveryStatus: null,
    providerMessageId: input.providerMessageId,
    deliveryError: null,
    readAt: null,
    createdAt: input.createdAt ?? nowIso(),
    ...NOT_SENT,
  };
  return {
    message: row,
    stored: [db.insert(messages).values(row).onConflictDoNothing().returning({ id: messages.id }), messageEvent(db, agencyId, row.id, "message.received", { ifChanged: true })] as const,
  };
}

/** Whether the agency already has the inbound message of this provider message id (a provider or a queue sent it again). */
export const inboundStored = async (db: Db, agencyId: string, providerMessageId: string) =>
  (await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.providerMessageId, providerMessageId), eq(messages.agencyId, agencyId), eq(messages.direction, "inbound")))
    .get()) !== undefined;

import { and, count, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { messages, type messageChannels, type messageDirections } from "@/db/schema";
import { newId } from "@/lib/ids";
import { offsetOf, type Pagination } from "@/lib/pagination";
import { nowIso } from "@/lib/time";
import type { DeliveryStatus } from "./providers/sms-provider";

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
  read_at: m.readAt,
  created_at: m.createdAt,
});

const ofAgency = (agencyId: string, messageId: string) => and(eq(messages.id, messageId.toLowerCase()), eq(messages.agencyId, agencyId));

export interface MessageFilters {
  contactId?: string;
  channel?: MessageChannel;
  unread?: boolean;
}

export async function listMessages(db: Db, agencyId: string, filters: MessageFilters, page: Pagination) {
  const where = and(
    eq(messages.agencyId, agencyId),
    filters.contactId !== undefined ? eq(messages.contactId, filters.contactId) : undefined,
    filters.channel !== undefined ? eq(messages.channel, filters.channel) : undefined,
    filters.unread === undefined ? undefined : filters.unread ? isNull(messages.readAt) : isNotNull(messages.readAt),
  );
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(messages)
      .where(where)
      // Newest first; rowid breaks ties between messages stored in the same millisecond.
      .orderBy(desc(messages.createdAt), desc(sql`${messages}.rowid`))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ total: count() }).from(messages).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

export interface NewMessage {
  contactId: string;
  channel: MessageChannel;
  direction: MessageDirection;
  body: string;
  deliveryStatus: DeliveryStatus | null;
  /** Inbound messages arrive unread (null); what the agency writes itself starts read. */
  read: boolean;
}

export async function createMessage(db: Db, agencyId: string, input: NewMessage) {
  const now = nowIso();
  const { read, ...columns } = input;
  const row: MessageRow = { id: newId(), agencyId, ...columns, providerMessageId: null, readAt: read ? now : null, createdAt: now };
  await db.insert(messages).values(row);
  return row;
}

export const recordDelivery = (db: Db, agencyId: string, messageId: string, result: { status: DeliveryStatus; providerMessageId: string | null }) =>
  db
    .update(messages)
    .set({ deliveryStatus: result.status, providerMessageId: result.providerMessageId })
    .where(ofAgency(agencyId, messageId))
    .returning()
    .get();

/** Marks read, keeping the first read time when it already was. */
export const markRead = (db: Db, agencyId: string, messageId: string) =>
  db
    .update(messages)
    .set({ readAt: sql`coalesce(${messages.readAt}, ${nowIso()})` })
    .where(ofAgency(agencyId, messageId))
    .returning()
    .get();

export const markUnread = (db: Db, agencyId: string, messageId: string) =>
  db.update(messages).set({ readAt: null }).where(ofAgency(agencyId, messageId)).returning().get();

import type { Db } from "@/db/client";
import { pathEvents, type pathEventTypes } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";

export type PathEventType = (typeof pathEventTypes)[number];
export type PathEventRow = typeof pathEvents.$inferSelect;

export interface NewPathEvent {
  pathId: string;
  type: PathEventType;
  /** The step key the event happened on; null/undefined for path-level events (a contact, a booking). */
  step?: string | null;
  /** When it happened (any ISO 8601 instant); defaults to now. Stored as UTC with milliseconds. */
  at?: string;
  contactId?: string | null;
}

/**
 * Records one path event, the input of Path Analytics. Callers check the path first
 * (`assertKnownPath`); this only writes. Used by the operator path-events row, contact
 * creation (`lead`) and booking creation (`booking`).
 */
export async function recordPathEvent(db: Db, agencyId: string, input: NewPathEvent): Promise<PathEventRow> {
  const { row, insert } = pathEventInsert(db, agencyId, input);
  await insert;
  return row;
}

/** The row of one path event and its INSERT, for a caller's batch. */
export function pathEventInsert(db: Db, agencyId: string, input: NewPathEvent) {
  const row: PathEventRow = {
    id: newId(),
    agencyId,
    pathId: input.pathId.toLowerCase(),
    type: input.type,
    step: input.step ?? null,
    contactId: input.contactId ?? null,
    occurredAt: new Date(input.at ?? Date.now()).toISOString(),
    createdAt: nowIso(),
  };
  return { row, insert: db.insert(pathEvents).values(row) };
}

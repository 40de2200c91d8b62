import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Db, DrizzleD1 } from "./database";

/**
 * The data floor's part of the transactional outbox (docs/decisions/events-and-webhooks.md): a
 * change and its event are written in one batch, through `commit`, which is the one way this
 * project runs a batch (the `Db` type has no `batch`). `commit` reads each event
 * statement's RETURNING (`eventStatement`, src/domain/events/events.ts, says whether webhook endpoints
 * subscribe to it) and notes the events that have deliveries to send; whoever closes the
 * request's (or job's) shard session publishes them once it succeeded (src/domain/webhooks/publish.ts).
 */

/** The events each request's (or job's) database client wrote that have deliveries to send. Keyed by the client, which lives one request. */
const written = new WeakMap<Db, string[]>();

/**
 * Event statements not yet committed, with their event ids: `commit` reads each one's answer.
 * RETURNED_IDS: a statement that may write several events, whose ids its RETURNING gives.
 */
const RETURNED_IDS = Symbol("ids in the statement's RETURNING");
/** `ids`: events of one type and agency, all with deliveries or none, as the statement's one row says. */
type Pending = string | typeof RETURNED_IDS | { ids: readonly string[] };
const pending = new WeakMap<object, Pending>();

export const eventsWrittenBy = (db: Db): readonly string[] => written.get(db) ?? [];

/** Marks an event as having new deliveries to send when the request succeeds. */
export function publishAfterWrite(db: Db, eventId: string) {
  const list = written.get(db);
  if (list) list.push(eventId);
  else written.set(db, [eventId]);
}

/** Marks an event statement: `commit` reads from its answer whether the event has deliveries. */
export const awaitsCommit = (statement: object, eventId: string) => void pending.set(statement, eventId);

/** Marks a statement that writes any number of events, each returning its `id` and `subscribers`. */
export const awaitsCommitOfEach = (statement: object) => void pending.set(statement, RETURNED_IDS);

/**
 * Marks a statement answering one row whose `subscribers` counts the endpoints subscribed to the
 * events `eventIds` (all of one type and agency, written earlier in the same batch).
 */
export const awaitsCommitOfAll = (statement: object, eventIds: readonly string[]) => void pending.set(statement, { ids: eventIds });

/**
 * Runs `statements` as one batch (one transaction, one round trip) and notes which of its events
 * got deliveries: only those are published after the request, so a write of an agency without
 * webhook endpoints costs no round trip beyond its own batch.
 */
export async function commit<U extends BatchItem<"sqlite">, T extends Readonly<[U, ...U[]]>>(db: Db, statements: T): Promise<BatchResponse<T>> {
  // The one place a batch runs (Db hides drizzle's own batch from everyone else).
  const results = await (db as DrizzleD1).batch(statements);
  statements.forEach((statement, i) => {
    const id = pending.get(statement);
    if (id === undefined) return;
    pending.delete(statement);
    const rows = (results as unknown[])[i] as { subscribers: number; id?: string }[];
    if (typeof id === "object") {
      if (rows[0] && rows[0].subscribers > 0) for (const each of id.ids) publishAfterWrite(db, each);
    } else if (id === RETURNED_IDS) {
      for (const row of rows) if (row.subscribers > 0 && row.id) publishAfterWrite(db, row.id);
    } else if (rows[0] && rows[0].subscribers > 0) publishAfterWrite(db, id);
  });
  return results;
}

import type { Db } from "./database";

// Which events a request (or a job) wrote that have webhook deliveries to send once it
// succeeded (src/lib/webhooks/publish.ts): the data floor's part of the transactional outbox.
// `eventStatement` (src/lib/events.ts) marks its statements; `trackEvents`, wrapped around every
// client, reads each one's RETURNING after its batch ran.

/**
 * The events whose deliveries each request's (or job's) database client has created, for
 * `publishEvents` once the request succeeded. Keyed by the client, which lives one request.
 */
const written = new WeakMap<Db, string[]>();

export const eventsWrittenBy = (db: Db): readonly string[] => written.get(db) ?? [];

/** Marks an event as having new deliveries to send when the request succeeds. */
export function publishAfterWrite(db: Db, eventId: string) {
  const list = written.get(db);
  if (list) list.push(eventId);
  else written.set(db, [eventId]);
}

/** Event statements not yet run: their event ids, claimed from the batch results by `trackEvents`. */
const pending = new WeakMap<object, string>();

/** Marks an event statement: once its batch has run, `trackEvents` reads whether it has deliveries. */
export const awaitsBatch = (statement: object, eventId: string) => void pending.set(statement, eventId);

/**
 * Makes `db.batch` note, from each event statement's RETURNING, which events got deliveries:
 * only those are published after the request, so a write of an agency without webhook
 * endpoints costs no D1 round trip beyond its own batch.
 */
export function trackEvents<T extends Db>(db: T): T {
  const batch = db.batch.bind(db);
  db.batch = (async (statements: Parameters<T["batch"]>[0]) => {
    const results = (await batch(statements)) as unknown[];
    statements.forEach((statement, i) => {
      const id = pending.get(statement);
      if (id === undefined) return;
      pending.delete(statement);
      const rows = results[i] as { subscribers: number }[];
      if (rows[0] && rows[0].subscribers > 0) publishAfterWrite(db, id);
    });
    return results;
  }) as T["batch"];
  return db;
}

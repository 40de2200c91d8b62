// What a record costs a shard (docs/operations.md, Scaling): a fresh SQLite database with every
// migration applied, then 10,000 records of each kind written as the API writes them (the same
// triggers keep the search index, the counts and the move fence), measured in pages before and
// after. D1 reports a database's size the same way (pages times page size).
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const N = 10_000;
const iso = (ms) => new Date(ms).toISOString();

function migrated(migrationsDir) {
  const dir = mkdtempSync(join(tmpdir(), "storage-"));
  const db = new DatabaseSync(join(dir, "shard.sqlite"));
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).sort()) {
    for (const statement of readFileSync(join(migrationsDir, file), "utf8").split("--> statement-breakpoint")) {
      if (statement.trim()) db.exec(statement);
    }
  }
  return { db, dir };
}

const bytes = (db) => db.prepare("PRAGMA page_count").get().page_count * db.prepare("PRAGMA page_size").get().page_size;

/** Runs `write` in one transaction and returns the bytes it added, per record. */
function measured(db, write) {
  const before = bytes(db);
  db.exec("BEGIN");
  write();
  db.exec("COMMIT");
  return Math.round((bytes(db) - before) / N);
}

/**
 * Bytes per contact (its row, indexes, tags, search index and counters), per event (a
 * `contact.created` with the contact's snapshot, as eventStatement writes it), per call and per
 * message, each over 10,000 of them in one agency of a database that holds another agency too.
 */
export function measureStorage(migrationsDir) {
  const { db, dir } = migrated(migrationsDir);
  try {
    const now = Date.now();
    const agencies = [randomUUID(), randomUUID()];
    for (const id of agencies) {
      db.prepare("INSERT INTO agencies (id, name, timezone, created_at, updated_at) VALUES (?, 'Storage agency', 'America/New_York', ?, ?)").run(id, iso(now), iso(now));
    }
    const agencyId = agencies[0];
    const contact = db.prepare(
      `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'zillow', NULL, ?, ?, ?, NULL)`,
    );
    const tag = db.prepare("INSERT INTO contact_tags (contact_id, agency_id, tag) VALUES (?, ?, ?)");
    const contactIds = [];
    const perContact = measured(db, () => {
      for (let i = 0; i < N; i++) {
        const id = randomUUID();
        const at = iso(now + i);
        const tags = ["buyer", i % 2 ? "hot" : "nurture"];
        contact.run(id, agencyId, `Ava${i}`, `Martinez${i}`, `ava.martinez${i}@example.com`, `+1212${String(5_000_000 + i).padStart(7, "0")}`,
          JSON.stringify(tags), JSON.stringify({ budget: 650000 + i, buyer_type: "first_time" }), at, at);
        for (const t of tags) tag.run(id, agencyId, t);
        contactIds.push(id);
      }
    });
    // The snapshot is the row as stored, keyed by the schema's TypeScript names (src/domain/events/events.ts).
    const event = db.prepare(
      `INSERT INTO events (id, agency_id, type, object_type, snapshot, created_at)
       SELECT ?, agency_id, 'contact.created', 'contact', json_object('id', id, 'agencyId', agency_id, 'firstName', first_name,
         'lastName', last_name, 'email', email, 'phone', phone, 'tags', tags, 'source', source, 'pathId', path_id,
         'customFields', custom_fields, 'createdAt', created_at, 'updatedAt', updated_at, 'deletedAt', deleted_at), ?
       FROM contacts WHERE id = ?`,
    );
    const perEvent = measured(db, () => {
      for (let i = 0; i < N; i++) event.run(randomUUID(), iso(now + i), contactIds[i]);
    });
    const call = db.prepare(
      `INSERT INTO voice_calls (id, agency_id, contact_id, contact_name, phone, direction, status, ended_reason, duration_seconds,
         agent_id, phone_number_id, scheduled_at, due_at, attempts, started_at, ended_at, summary, cost_cents, created_at, updated_at)
       VALUES (?, ?, ?, 'Ava Martinez', '+12125550101', 'outbound', 'completed', 'customer-ended-call', 95, NULL, NULL, NULL, ?, 1, ?, ?,
         'Asked about a showing on Saturday; prefers mornings. Follow up with two listings under 700k.', 30, ?, ?)`,
    );
    const perCall = measured(db, () => {
      for (let i = 0; i < N; i++) {
        const at = iso(now + i);
        call.run(randomUUID(), agencyId, contactIds[i], at, at, at, at, at);
      }
    });
    const message = db.prepare(
      `INSERT INTO messages (id, agency_id, contact_id, channel, direction, body, delivery_status, provider_message_id, read_at, created_at)
       VALUES (?, ?, ?, 'sms', 'outbound', 'Hi Ava, the 3-bed on Elm St is open Saturday 10-12. Want me to hold a slot for you?', 'delivered', NULL, ?, ?)`,
    );
    const perMessage = measured(db, () => {
      for (let i = 0; i < N; i++) message.run(randomUUID(), agencyId, contactIds[i], iso(now + i), iso(now + i));
    });
    return { records: N, perContact, perEvent, perCall, perMessage };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(measureStorage(join(import.meta.dirname, "..", "..", "migrations")));
}

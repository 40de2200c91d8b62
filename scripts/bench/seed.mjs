// Writes the benchmark's data straight into the local D1 SQLite file (after wrangler has
// applied the migrations): 100,000 rows through the API would take longer than the benchmark.
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The one D1 database file miniflare keeps under `<state>/v3/d1`. */
export function findD1File(stateDir) {
  const root = join(stateDir, "v3", "d1");
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".sqlite") && !entry.name.startsWith("metadata")) found.push(path);
    }
  };
  walk(root);
  if (found.length !== 1) throw new Error(`expected one D1 database under ${root}, found ${found.length}`);
  return found[0];
}

const iso = (ms) => new Date(ms).toISOString();

/** Same format and hash as src/lib/auth/tokens.ts: `<prefix>_<key id hex><secret>`. */
export function makeToken(keyId, pepper) {
  const token = `pa_${keyId.replaceAll("-", "")}${randomBytes(32).toString("base64url")}`;
  const hash = pepper
    ? createHmac("sha256", pepper).update(token).digest("hex")
    : createHash("sha256").update(token).digest("hex");
  return { token, hash };
}

/**
 * Search fixtures, the same in every agency whatever its size: SEARCH.count contacts named
 * SEARCH.first SEARCH.last and SEARCH.count others tagged SEARCH.tag, spread evenly from the
 * oldest to the newest, so a search's work can be compared across sizes.
 */
export const SEARCH = { first: "Quinn", last: "Okafor", tag: "needle", count: 25 };

const FIRST = ["Ava", "Liam", "Mia", "Noah", "Emma", "Lucas", "Zoe", "Ethan", "Chloe", "Mason"];
const LAST = ["Martinez", "Chen", "Patel", "Brown", "Nguyen", "Garcia", "Smith", "Kim", "Lopez", "Jones"];
const SOURCES = ["zillow", "referral", "website", "open-house"];

/**
 * One agency with `contacts` contacts, a tenth as many calls, a twentieth as many
 * appointments (spread over the next 60 days), working hours, a voice agent and a wallet,
 * a `*` key whose rate limits are multiplied so the limiter counts but never refuses, and the
 * search fixtures (SEARCH) among its contacts.
 */
export function seedAgency(db, { name, contacts, pepper, multiplier }) {
  const now = Date.now();
  const agencyId = randomUUID();
  const keyId = randomUUID();
  const { token, hash } = makeToken(keyId, pepper);
  db.prepare("INSERT INTO agencies (id, name, timezone, created_at, updated_at) VALUES (?, ?, 'America/New_York', ?, ?)").run(
    agencyId, name, iso(now), iso(now),
  );
  db.prepare(
    `INSERT INTO api_keys (id, agency_id, name, kind, scopes, access_hash, rotate_hash, expires_at, expires,
       rate_limit_multiplier, created_at, updated_at)
     VALUES (?, ?, 'bench', 'standard', '["*"]', ?, NULL, ?, 1, ?, ?, ?)`,
  ).run(keyId, agencyId, hash, iso(now + 30 * 86_400_000), multiplier, iso(now), iso(now));
  // The directory (migration 0011) in the same database, the first shard; a baseline from before
  // shards has no such tables.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agency_directory'").get()) {
    db.prepare("INSERT INTO agency_directory (agency_id, shard, created_at) VALUES (?, 'DB', ?)").run(agencyId, iso(now));
    db.prepare("INSERT INTO directory_records (id, kind, agency_id) VALUES (?, 'api_key', ?)").run(keyId, agencyId);
  }
  db.prepare(
    `INSERT INTO calendar_hours (id, agency_id, member_id, calendar_key, timezone, slot_minutes, days, created_at, updated_at)
     VALUES (?, ?, NULL, 'agency', 'America/New_York', 30, ?, ?, ?)`,
  ).run(randomUUID(), agencyId, JSON.stringify([1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: "09:00", end: "17:00" }))), iso(now), iso(now));

  const agentId = randomUUID();
  db.prepare("INSERT INTO voice_agents (id, agency_id, name, status, created_at, updated_at) VALUES (?, ?, 'Bench agent', 'active', ?, ?)").run(
    agentId, agencyId, iso(now), iso(now),
  );
  db.prepare("INSERT INTO voice_phone_numbers (id, agency_id, agent_id, number, created_at) VALUES (?, ?, ?, '+14155550100', ?)").run(
    randomUUID(), agencyId, agentId, iso(now),
  );
  db.prepare("INSERT INTO wallets (agency_id, balance_cents, currency, rate_per_minute_cents, updated_at) VALUES (?, 100000000, 'USD', 15, ?)").run(
    agencyId, iso(now),
  );

  const insertContact = db.prepare(
    `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, source, path_id, custom_fields, created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, '{}', ?, ?, NULL)`,
  );
  const insertTag = db.prepare("INSERT INTO contact_tags (contact_id, agency_id, tag) VALUES (?, ?, ?)");
  const contactIds = [];
  // Every `step`-th contact from the oldest on is a named one, and the one half a step later a
  // tagged one (contact 0 is the oldest, the last one the newest).
  if (contacts < 2 * SEARCH.count) throw new Error(`an agency needs at least ${2 * SEARCH.count} contacts for the search fixtures`);
  const step = Math.floor(contacts / SEARCH.count);
  const named = (i) => i % step === Math.floor(step / 4) && i < step * SEARCH.count;
  const tagged = (i) => i % step === Math.floor((3 * step) / 4) && i < step * SEARCH.count;
  for (let i = 0; i < contacts; i++) {
    const id = randomUUID();
    const at = iso(now - (contacts - i) * 1000);
    const tags = i % 3 === 0 ? ["buyer"] : i % 3 === 1 ? ["seller", "vip"] : [];
    if (tagged(i)) tags.push(SEARCH.tag);
    insertContact.run(
      id, agencyId, named(i) ? SEARCH.first : FIRST[i % 10], named(i) ? SEARCH.last : LAST[(i / 10) % 10 | 0],
      `bench-${i}@${agencyId.slice(0, 8)}.example`,
      `+1415${String(2_000_000 + i).padStart(7, "0")}`, JSON.stringify(tags), SOURCES[i % 4], at, at,
    );
    for (const tag of tags) insertTag.run(id, agencyId, tag);
    contactIds.push(id);
  }

  const insertCall = db.prepare(
    `INSERT INTO voice_calls (id, agency_id, contact_id, contact_name, phone, direction, status, ended_reason, duration_seconds,
       agent_id, phone_number_id, scheduled_at, due_at, attempts, started_at, ended_at, summary, cost_cents, created_at, updated_at)
     VALUES (?, ?, ?, 'Bench Contact', '+14155550123', 'outbound', 'completed', 'customer-ended-call', 95, ?, NULL, NULL, ?, 1, ?, ?, 'Discussed a showing.', 30, ?, ?)`,
  );
  for (let i = 0; i < contacts / 10; i++) {
    const at = iso(now - (contacts - i) * 1000);
    insertCall.run(randomUUID(), agencyId, contactIds[i], agentId, at, at, at, at, at);
  }

  // Appointments on free slots of the next 60 days (weekdays 09:00-17:00 New York).
  const insertAppointment = db.prepare(
    `INSERT INTO appointments (id, agency_id, contact_id, member_id, calendar_key, start_at, end_at, status, title, notes,
       booking_widget_id, path_id, created_at, updated_at, canceled_at)
     VALUES (?, ?, ?, NULL, 'agency', ?, ?, 'booked', 'Showing', NULL, NULL, NULL, ?, ?, NULL)`,
  );
  let placed = 0;
  for (let day = 1; day <= 60 && placed < contacts / 20; day++) {
    const date = new Date(now + day * 86_400_000);
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let slot = 0; slot < 16 && placed < contacts / 20; slot += 2) {
      // 14:00Z is 09:00 in New York in winter; the benchmark only needs valid, distinct starts.
      const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), 14, 0) + slot * 30 * 60_000;
      insertAppointment.run(randomUUID(), agencyId, contactIds[placed], iso(start), iso(start + 30 * 60_000), iso(now), iso(now));
      placed++;
    }
  }
  return { agencyId, token, contactId: contactIds[contactIds.length - 1], contacts };
}

export function seedBenchmark(dbFile, { pepper, sizes }) {
  const db = new DatabaseSync(dbFile);
  db.exec("BEGIN");
  try {
    const agencies = sizes.map((contacts) =>
      seedAgency(db, { name: `Bench ${contacts}`, contacts, pepper, multiplier: 100_000 }),
    );
    db.exec("COMMIT");
    return agencies;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  } finally {
    db.close();
  }
}

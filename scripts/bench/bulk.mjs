// Bulk upsert against single POSTs (issues 20 and 30), measured by `npm run bench`:
// - contacts created per second by POST /contacts/bulk (100 new contacts a request) against
//   contacts created per second by POST /contacts (one a request), the same connections, A B A B,
//   on every Worker given (the current one, and the BENCH_BASELINE checkout when there is one);
// - rows read and written per new contact, from one instrumented request of each (BENCH_METRICS);
// - the round trips of a clash's fallback: BULK_CLASH_REQUESTS requests at once, each upserting
//   the same 50 new contacts and 50 of its own, so all but the first to write find values taken;
//   each answer's round trips less the two of a bulk without a clash are its fallback's, and
//   every contact must come out created exactly once;
// - the search index's upkeep apart: the same Worker and data with the search index's triggers
//   dropped (migration 0010_contacts_fts.sql), measured in the same rounds, so the difference in
//   contacts per second and rows per new contact is what keeping GET /contacts?q= exact costs.
//
// Part of `npm run bench`; `node scripts/bench/bulk.mjs` runs it alone (one agency of 1,000
// contacts on each Worker; `BENCH_AB_SECONDS`, `BENCH_AB_WARMUP_SECONDS`, `BENCH_ROUNDS`,
// `BENCH_CONNECTIONS` and `BENCH_BASELINE` as in the full run).
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { alternate, median } from "./measure.mjs";
import { runIfMain, scenarioTargets, seedOneAgency, withTargets } from "./servers.mjs";
import { ensureDevVars } from "../lib/dev-vars.mjs";

export const BULK_ITEMS = 100;
/** Requests fired at once with half their new contacts the same: one creates those, the others clash. */
export const BULK_CLASH_REQUESTS = 8;
/** Tries of the clash: requests that arrive at once may still happen to run one after another. */
const CLASH_TRIES = 10;
/** Round trips of a bulk upsert that meets no clash: one read, one write. */
const PLAIN_TRIPS = 2;
/** The triggers that keep the search index (contacts_fts) exact. */
const SEARCH_INDEX_TRIGGERS = ["contacts_fts_insert", "contacts_fts_update", "contacts_fts_delete"];

let n = 0;
const unique = () => `${Date.now().toString(36)}-${(n++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
/** A new contact, as a CRM sync sends it: a name, an email, its own id and a tag. */
const newContact = () => {
  const id = unique();
  return { first_name: "Bulk", last_name: "Sync", email: `b-${id}@bench.example`, external_id: `crm-${id}`, tags: ["bench"] };
};
const newContacts = () => Array.from({ length: BULK_ITEMS }, newContact);

const headersOf = (agency) => ({ Authorization: `Bearer ${agency.token}`, "Content-Type": "application/json" });

const allCreated = (body) =>
  body?.results?.length === BULK_ITEMS && body.results.every((r) => r.status === "created")
    ? undefined
    : `expected ${BULK_ITEMS} created: ${JSON.stringify(body).slice(0, 300)}`;

/** The two scenarios of one Worker. */
function scenariosOf(agency) {
  const headers = headersOf(agency);
  return {
    single: { name: "POST /contacts", method: "POST", path: "/api/v2/contacts", headers, body: () => JSON.stringify(newContact()) },
    bulk: {
      name: `POST /contacts/bulk (${BULK_ITEMS} new)`,
      method: "POST",
      path: "/api/v2/contacts/bulk",
      headers,
      body: () => JSON.stringify({ contacts: newContacts() }),
      check: allCreated,
    },
  };
}

/**
 * One instrumented request: its answer and the Worker's D1 metrics (rows written only from a
 * Worker that reports them; an older checkout may not).
 */
async function instrumented(base, scenario, body = scenario.body()) {
  const res = await fetch(`${base}${scenario.path}`, { method: scenario.method, headers: { ...scenario.headers, "X-Bench-Rows-Read": "1" }, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${scenario.name}: HTTP ${res.status} ${text.slice(0, 300)}`);
  const number = (name) => {
    const value = res.headers.get(name);
    return value === null ? null : Number(value);
  };
  const measured = {
    rowsRead: number("X-Bench-Rows-Read"),
    rowsWritten: number("X-Bench-Rows-Written"),
    d1RoundTrips: number("X-Bench-D1-Round-Trips"),
    d1Statements: number("X-Bench-D1-Statements"),
  };
  if (measured.rowsRead === null || measured.d1RoundTrips === null) throw new Error(`${scenario.name}: no benchmark metrics (is BENCH_METRICS on?)`);
  return { body: JSON.parse(text), ...measured };
}

/** Rows read and written per new contact, from one request of each scenario. */
async function perContact(base, scenarios) {
  const single = await instrumented(base, scenarios.single);
  const bulk = await instrumented(base, scenarios.bulk);
  const problem = allCreated(bulk.body);
  if (problem) throw new Error(`${scenarios.bulk.name}: ${problem}`);
  const per = (value, count) => (value === null ? null : +(value / count).toFixed(1));
  return {
    single: { rowsRead: single.rowsRead, rowsWritten: single.rowsWritten, d1RoundTrips: single.d1RoundTrips, d1Statements: single.d1Statements },
    bulk: {
      rowsRead: bulk.rowsRead,
      rowsWritten: bulk.rowsWritten,
      rowsReadPerContact: per(bulk.rowsRead, BULK_ITEMS),
      rowsWrittenPerContact: per(bulk.rowsWritten, BULK_ITEMS),
      d1RoundTrips: bulk.d1RoundTrips,
      d1Statements: bulk.d1Statements,
    },
  };
}

/**
 * BULK_CLASH_REQUESTS requests at once, each upserting the same SHARED new contacts and as many
 * of its own, until one of them met a clash (at most CLASH_TRIES tries): the most round trips a fallback
 * made, and whether the outcome was the one right one (each shared contact created once, by one
 * request, and unchanged in the others; each request's own contacts created).
 */
async function clash(base, scenarios) {
  const SHARED = BULK_ITEMS / 2;
  for (let attempt = 1; attempt <= CLASH_TRIES; attempt++) {
    const shared = newContacts().slice(0, SHARED);
    const bodies = Array.from({ length: BULK_CLASH_REQUESTS }, () => JSON.stringify({ contacts: [...shared, ...newContacts().slice(SHARED)] }));
    const answers = await Promise.all(bodies.map((body) => instrumented(base, scenarios.bulk, body)));
    for (let i = 0; i < BULK_ITEMS; i++) {
      const results = answers.map((a) => a.body.results[i]);
      const created = results.filter((r) => r.status === "created").length;
      const right =
        i < SHARED
          ? created === 1 && new Set(results.map((r) => r.contact_uuid)).size === 1 && results.every((r) => r.status === "created" || r.status === "unchanged")
          : created === results.length;
      if (!right) throw new Error(`clash: item ${i} came out wrong: ${JSON.stringify(results).slice(0, 400)}`);
    }
    const fallbacks = answers.map((a) => a.d1RoundTrips - PLAIN_TRIPS).filter((trips) => trips > 0);
    if (fallbacks.length > 0) return { requests: BULK_CLASH_REQUESTS, attempts: attempt, clashed: fallbacks.length, fallbackTrips: Math.max(...fallbacks), d1RoundTrips: answers.map((a) => a.d1RoundTrips) };
  }
  return { requests: BULK_CLASH_REQUESTS, attempts: CLASH_TRIES, clashed: 0, fallbackTrips: null, d1RoundTrips: [] };
}

/**
 * The measurement. `workers`: `[{ key, label, base, agency }]`, each Worker measured on its
 * agency; `key` "unindexed" is the current Worker without the search index's triggers.
 */
export async function measureBulk(workers, { rounds, warmup, seconds, connections, log }) {
  const byKey = {};
  for (const w of workers) {
    const scenarios = scenariosOf(w.agency);
    byKey[w.key] = { label: w.label, scenarios, rows: await perContact(w.base, scenarios) };
    if (w.key !== "unindexed") {
      log(`bulk clash on ${w.label}: ${BULK_CLASH_REQUESTS} requests at once sharing ${BULK_ITEMS / 2} of their ${BULK_ITEMS} new contacts`);
      byKey[w.key].clash = await clash(w.base, scenarios);
    }
  }
  const sides = workers.flatMap((w) =>
    ["single", "bulk"].map((kind) => ({ key: `${w.key}.${kind}`, base: w.base, scenario: { ...byKey[w.key].scenarios[kind], name: `${byKey[w.key].scenarios[kind].name} [${w.label}]` } })),
  );
  log(`contacts per second: POST /contacts/bulk (${BULK_ITEMS} a request) vs POST /contacts on ${workers.map((w) => w.label).join(", ")}, ${rounds} rounds side by side`);
  const { rounds: each, medians } = await alternate(sides, {
    rounds,
    warmup,
    seconds,
    connections,
    onRound: (r, round) =>
      log(`  round ${r}: ${workers.map((w) => `${w.label} single ${round[`${w.key}.single`].rps}, bulk ${Math.round(round[`${w.key}.bulk`].rps * BULK_ITEMS)} contacts/s`).join("; ")}`),
  });
  const result = {};
  for (const w of workers) {
    const { rows, clash: clashed, label } = byKey[w.key];
    const single = medians[`${w.key}.single`];
    const bulk = medians[`${w.key}.bulk`];
    result[w.key] = {
      label,
      single: { ...single, contactsPerSecond: single.rps, ...rows.single, rounds: each.map((r) => r[`${w.key}.single`]) },
      bulk: { ...bulk, contactsPerSecond: Math.round(bulk.rps * BULK_ITEMS), ...rows.bulk, rounds: each.map((r) => r[`${w.key}.bulk`]) },
      // Each round's bulk contacts/s over its single contacts/s, then the median: drift falls on both alike.
      ratio: +median(each.map((r) => (r[`${w.key}.bulk`].rps * BULK_ITEMS) / Math.max(r[`${w.key}.single`].rps, 0.1))).toFixed(1),
      clash: clashed ?? null,
    };
  }
  return result;
}

/**
 * Drops the search index's triggers from a Worker's local D1 file (before its wrangler starts):
 * that Worker then writes contacts exactly as the current one but for the index's upkeep.
 */
export function dropSearchIndexTriggers(dbFile) {
  const db = new DatabaseSync(dbFile);
  try {
    for (const name of SEARCH_INDEX_TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  } finally {
    db.close();
  }
}

/** The budgets of issue 30 on the current Worker. */
export function bulkBudgets(bulk) {
  const current = bulk?.current;
  if (!current) return [];
  const fallback = current.clash?.fallbackTrips;
  return [
    {
      budget: "bulk upsert >= 10x the contacts created per second of POST /contacts",
      value: `${current.ratio}x (${current.bulk.contactsPerSecond} vs ${current.single.contactsPerSecond} contacts/s, median of per-round ratios)`,
      ok: current.ratio >= 10,
    },
    { budget: "bulk upsert reads <= 10 rows per new contact", value: `${current.bulk.rowsReadPerContact}`, ok: current.bulk.rowsReadPerContact <= 10 },
    {
      budget: "bulk upsert's fallback after a clash <= 3 D1 round trips",
      value: fallback === null || fallback === undefined ? "no clash happened" : `${fallback}`,
      ok: fallback === null || fallback === undefined ? null : fallback <= 3,
    },
  ];
}

/** The report's lines. */
export function bulkLines(bulk, connections) {
  if (!bulk) return [];
  const pad = (v, w) => String(v ?? "-").padStart(w);
  const header = `${"request".padEnd(52)}${pad("req/s", 8)}${pad("contacts/s", 12)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("rows read", 11)}${pad("read/new", 10)}${pad("written/new", 13)}${pad("D1 trips", 10)}${pad("D1 stmts", 10)}`;
  const lines = [`contacts created per second, ${connections} connections, medians of ${Object.values(bulk)[0].single.rounds.length} rounds side by side:`, header, "-".repeat(header.length)];
  for (const w of Object.values(bulk)) {
    const s = w.single;
    const b = w.bulk;
    lines.push(`${`POST /contacts [${w.label}]`.padEnd(52)}${pad(s.rps, 8)}${pad(s.contactsPerSecond, 12)}${pad(s.p50, 8)}${pad(s.p99, 8)}${pad(s.rowsRead, 11)}${pad(s.rowsRead, 10)}${pad(s.rowsWritten, 13)}${pad(s.d1RoundTrips, 10)}${pad(s.d1Statements, 10)}`);
    lines.push(`${`POST /contacts/bulk (${BULK_ITEMS} new) [${w.label}]`.padEnd(52)}${pad(b.rps, 8)}${pad(b.contactsPerSecond, 12)}${pad(b.p50, 8)}${pad(b.p99, 8)}${pad(b.rowsRead, 11)}${pad(b.rowsReadPerContact, 10)}${pad(b.rowsWrittenPerContact, 13)}${pad(b.d1RoundTrips, 10)}${pad(b.d1Statements, 10)}`);
  }
  for (const w of Object.values(bulk)) lines.push(`bulk / single [${w.label}]: ${w.ratio}x the contacts created per second (median of the rounds' ratios)`);
  for (const w of Object.values(bulk)) {
    if (!w.clash) continue;
    const c = w.clash;
    lines.push(
      c.fallbackTrips === null
        ? `clash fallback [${w.label}]: no clash in ${c.attempts} tries of ${c.requests} requests at once`
        : `clash fallback [${w.label}]: ${c.fallbackTrips} D1 round trips after the clash at most (${c.clashed} of ${c.requests} requests at once clashed; round trips ${c.d1RoundTrips.join(", ")}); each contact created once`,
    );
  }
  const indexed = bulk.current;
  const unindexed = bulk.unindexed;
  if (indexed && unindexed) {
    const share = (a, b) => (a === null || b === null ? "-" : (a - b).toFixed(1));
    lines.push(
      `search index upkeep (current vs without its triggers): bulk ${indexed.bulk.contactsPerSecond} vs ${unindexed.bulk.contactsPerSecond} contacts/s, ` +
        `single ${indexed.single.contactsPerSecond} vs ${unindexed.single.contactsPerSecond}; per new contact in bulk ${share(indexed.bulk.rowsReadPerContact, unindexed.bulk.rowsReadPerContact)} rows read ` +
        `and ${share(indexed.bulk.rowsWrittenPerContact, unindexed.bulk.rowsWrittenPerContact)} rows written of ${indexed.bulk.rowsReadPerContact} and ${indexed.bulk.rowsWrittenPerContact}`,
    );
  }
  lines.push("");
  return lines;
}

/**
 * A Worker of the current checkout whose search index has no triggers, on its own state, seeded
 * with agencies of `sizes` contacts as the current Worker's (the first is measured); stop it when done.
 */
export async function startUnindexed({ port, out, pepper, sizes = [1_000] }) {
  const { Target, runnableConfig } = await import("./servers.mjs");
  const { seedBenchmark } = await import("./seed.mjs");
  const { ROOT } = await import("../lib/dev-vars.mjs");
  const dir = join(out, "unindexed");
  const target = new Target({
    label: "without search index",
    port,
    config: runnableConfig(join(ROOT, "wrangler.toml"), dir, { dropBuild: true, suffix: "-unindexed" }),
    root: ROOT,
    state: join(dir, "state"),
    envFile: join(ROOT, ".dev.vars"),
    vars: { LOG_LEVEL: "silent", BENCH_METRICS: "on" },
  });
  const file = await target.migrate();
  const [agency] = seedBenchmark(file, { pepper, sizes });
  dropSearchIndexTriggers(file);
  await target.start();
  return { target, agency };
}

/** `node scripts/bench/bulk.mjs`: this scenario alone, on servers of its own. */
async function standalone() {
  const started = Date.now();
  const log = (line) => console.log(`\x1b[35m[bench bulk ${Math.round((Date.now() - started) / 1000)}s]\x1b[0m ${line}`);
  const { port, out, current, baseline, targets } = scenarioTargets("bulk", { portOffset: 30, vars: { LOG_LEVEL: "silent", BENCH_METRICS: "on" } });
  const connections = Number(process.env.BENCH_CONNECTIONS || 10);
  await withTargets(targets, async () => {
    const { agency } = await seedOneAgency(current);
    const workers = [{ key: "current", label: "current", base: current.base, agency }];
    if (baseline) workers.push({ key: "baseline", label: "baseline", base: baseline.base, agency: (await seedOneAgency(baseline)).agency });
    const ownServers = [...targets];
    const unindexed = await startUnindexed({ port: port + 2, out, pepper: ensureDevVars().vars.TOKEN_PEPPER });
    targets.push(unindexed.target);
    workers.push({ key: "unindexed", label: "without search index", base: unindexed.target.base, agency: unindexed.agency });
    for (const t of ownServers) await t.start();
    await Promise.all(targets.map((t) => t.waitReady()));
    const result = await measureBulk(workers, {
      rounds: Math.max(3, Number(process.env.BENCH_ROUNDS || 3)),
      warmup: Number(process.env.BENCH_AB_WARMUP_SECONDS || 1),
      seconds: Number(process.env.BENCH_AB_SECONDS || 4),
      connections,
      log,
    });
    for (const line of bulkLines(result, connections)) console.log(line);
  });
}

runIfMain(import.meta.url, standalone);

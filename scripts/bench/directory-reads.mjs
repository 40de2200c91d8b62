// Directory reads per 1,000 requests over 1,000 keys (issue 30; docs/decisions/authentication.md,
// "The gate keeps the key's shard"). Every authenticated request goes through its key's
// AccessGate, which must know where the key's agency lives: the directory (D1 `DB`) says. This
// counts how often the Worker asks it, on the current checkout and, with BENCH_BASELINE, on
// another one, measured the same way from outside: each runs from a bench-only entry module
// (written under .bench/) that imports the checkout's src/index.ts unchanged, re-exports its
// handlers and classes, and hands the Worker and its AccessGate an environment whose `DB` counts
// every statement naming a directory table (`agency_directory`, `directory_records`); it also
// counts the gates' starts. The counts are read back from the entry's own path. Neither
// checkout needs a counter of its own.
//
// The scenario: KEYS keys (ten per agency) on shard DB, seeded straight into SQLite. Each key
// sends `GET /contacts?limit=1` once (its gate starts cold and reads the directory), then all
// keys take turns, round robin on `connections` connections, for STEADY_SECONDS: past the minute
// a gate used to keep the directory's answer. Every answer must be 200. Under `wrangler dev` an
// idle Durable Object is evicted after 10 s (70 to 140 s deployed), and a restarted gate reads
// the directory again, rightly; so each key must come round within 10 s (about 100 requests a
// second for 1,000 keys), and the gates' starts in the steady window are reported beside the
// reads: a start there means the pace was too slow and the window says less.
//
// `npm run bench` runs it with the rest; `node scripts/bench/directory-reads.mjs` runs it alone
// (BENCH_DIRECTORY_KEYS, BENCH_DIRECTORY_SECONDS, BENCH_CONNECTIONS, BENCH_BASELINE).
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/dev-vars.mjs";
import { makeToken } from "./seed.mjs";
import { Target, freePort, runnableConfig } from "./servers.mjs";

export const KEYS = Number(process.env.BENCH_DIRECTORY_KEYS || 1_000);
/** Past the minute a gate used to keep a key's agency's shard (KEY_CACHE_MS), with a margin. */
const STEADY_SECONDS = Number(process.env.BENCH_DIRECTORY_SECONDS || 65);
const KEYS_PER_AGENCY = 10;
const PEPPER = "bench-directory-pepper";
const COUNT_PATH = "/__bench/directory-reads";

/** The bench-only entry module: the checkout's Worker, its directory reads and its gates' starts counted. */
function entryModule(checkout) {
  const index = JSON.stringify(resolve(checkout, "src", "index.ts"));
  return `// Written by scripts/bench/directory-reads.mjs; do not edit.
import worker, { AccessGate as CheckoutGate } from ${index};
export * from ${index};

const DIRECTORY = /agency_directory|directory_records/;
let reads = 0;
let starts = 0;
const counted = new WeakMap();
/** The environment with its \`DB\` counting every statement that names a directory table. */
function counting(env) {
  let wrapped = counted.get(env);
  if (!wrapped) {
    const db = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") return (query) => { if (DIRECTORY.test(query)) reads++; return target.prepare(query); };
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    wrapped = new Proxy(env, { get: (target, prop) => (prop === "DB" ? db : Reflect.get(target, prop)) });
    counted.set(env, wrapped);
  }
  return wrapped;
}

export class AccessGate extends CheckoutGate {
  constructor(ctx, env) {
    starts++;
    super(ctx, counting(env));
  }
}

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === ${JSON.stringify(COUNT_PATH)}) return Response.json({ reads, starts });
    return worker.fetch(request, counting(env), ctx);
  },
};
`;
}

/** A wrangler config that runs the checkout's Worker from the counting entry module, under `dir`. */
function countingConfig(checkout, dir, label) {
  const config = runnableConfig(join(checkout, "wrangler.toml"), dir, { dropBuild: true, suffix: `-directory-reads-${label}` });
  const entry = join(dir, "entry.mjs");
  writeFileSync(entry, entryModule(checkout));
  writeFileSync(config, readFileSync(config, "utf8").replace(/^main\s*=\s*".*"$/m, `main = ${JSON.stringify(entry)}`));
  return config;
}

/** `keys` keys, ten per agency, every agency on shard DB, written straight into the migrated SQLite file. */
function seedKeys(dbFile, keys) {
  const db = new DatabaseSync(dbFile);
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const tokens = [];
  db.exec("BEGIN");
  try {
    const agency = db.prepare("INSERT INTO agencies (id, name, timezone, created_at, updated_at) VALUES (?, ?, 'America/New_York', ?, ?)");
    const home = db.prepare("INSERT INTO agency_directory (agency_id, shard, created_at) VALUES (?, 'DB', ?)");
    const key = db.prepare(
      `INSERT INTO api_keys (id, agency_id, name, kind, scopes, access_hash, rotate_hash, expires_at, expires, rate_limit_multiplier, created_at, updated_at)
       VALUES (?, ?, 'bench', 'standard', '["*"]', ?, NULL, ?, 1, 1, ?, ?)`,
    );
    const record = db.prepare("INSERT INTO directory_records (id, kind, agency_id) VALUES (?, 'api_key', ?)");
    let agencyId;
    for (let i = 0; i < keys; i++) {
      if (i % KEYS_PER_AGENCY === 0) {
        agencyId = randomUUID();
        agency.run(agencyId, `Directory bench ${i / KEYS_PER_AGENCY}`, now, now);
        home.run(agencyId, now);
      }
      const keyId = randomUUID();
      const { token, hash } = makeToken(keyId, PEPPER);
      key.run(keyId, agencyId, hash, expires, now, now);
      record.run(keyId, agencyId);
      tokens.push(token);
    }
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  } finally {
    db.close();
  }
  return tokens;
}

const countsOf = async (target) => (await fetch(`${target.base}${COUNT_PATH}`)).json();

/**
 * The keys in turn, round robin on `connections` connections. With `seconds`, one round to
 * settle (every gate warm again, restarted or not), then the measured window of `seconds` from
 * there; without, one round only, all measured (each key once). Every answer must be 200.
 * Resolves to the measured requests, the directory reads and gate starts they caused, and the
 * longest a key waited for its next turn in the window.
 */
async function roundRobin(target, tokens, connections, seconds = 0) {
  const keys = tokens.length;
  const lastAt = new Array(keys).fill(null);
  let next = 0;
  let longestGapMs = 0;
  let mark = seconds ? null : { at: performance.now(), counts: countsOf(target), requests: 0 };
  const keepGoing = () => (seconds ? mark === null || performance.now() < mark.at + seconds * 1000 : next < keys);
  const lane = async () => {
    while (keepGoing()) {
      if (!mark && next === keys) mark = { at: performance.now(), counts: countsOf(target), requests: next };
      const i = next++ % keys;
      const now = performance.now();
      if (mark && lastAt[i] !== null) longestGapMs = Math.max(longestGapMs, now - lastAt[i]);
      lastAt[i] = now;
      const res = await fetch(`${target.base}/api/v2/contacts?limit=1`, { headers: { Authorization: `Bearer ${tokens[i]}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${target.label}: GET /contacts answered ${res.status} ${body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  const [before, after] = [await mark.counts, await countsOf(target)];
  const requests = next - mark.requests;
  return { requests, rps: Math.round(requests / ((performance.now() - mark.at) / 1000)), reads: after.reads - before.reads, gateStarts: after.starts - before.starts, longestGapS: +(longestGapMs / 1000).toFixed(1) };
}

const perThousand = (reads, requests) => Math.round((reads / Math.max(requests, 1)) * 1000);

/**
 * Runs the scenario on the current checkout and, with `baseline` (a checkout's path), on that one
 * too, one after the other, each on its own Worker. Resolves to each side's cold pass and steady
 * window: requests, directory reads (and per 1,000 requests), gate starts, longest gap.
 */
export async function measureDirectoryReads({ out, log, baseline = null, connections = 10, keys = KEYS, seconds = STEADY_SECONDS }) {
  const dir = join(out, "directory-reads");
  const sides = [["current", ROOT], ...(baseline ? [["baseline", baseline]] : [])];
  const targets = [];
  for (const [label, checkout] of sides) {
    targets.push(
      new Target({
        label: `directory-reads ${label}`,
        port: await freePort(),
        config: countingConfig(checkout, join(dir, label), label),
        root: checkout,
        state: join(dir, label, "state"),
        vars: { LOG_LEVEL: "silent", TOKEN_PEPPER: PEPPER },
      }),
    );
  }
  try {
    log(`directory reads: ${keys.toLocaleString("en-US")} keys on ${sides.map(([l]) => l).join(" and ")}: each key once, then all in turn for ${seconds} s`);
    const tokens = [];
    for (const target of targets) tokens.push(seedKeys(await target.migrate(), keys));
    for (const target of targets) await target.start();
    await Promise.all(targets.map((t) => t.waitReady()));
    const result = { keys, seconds, connections };
    // One side after the other, each with the machine to itself: the pace that keeps every gate
    // alive is the scenario's condition, and two Workers at once would halve it.
    for (const [i, [label]] of sides.entries()) {
      const cold = await roundRobin(targets[i], tokens[i], connections);
      const steady = await roundRobin(targets[i], tokens[i], connections, seconds);
      targets[i].stop();
      result[label] = {
        cold: { ...cold, perThousand: perThousand(cold.reads, cold.requests) },
        steady: { ...steady, perThousand: perThousand(steady.reads, steady.requests) },
      };
      const { cold: c, steady: s } = result[label];
      log(
        `  ${label}: cold ${c.reads} directory reads for ${c.requests} requests; steady ${s.reads} for ${s.requests} at ${s.rps} req/s (${s.perThousand} per 1,000), ` +
          `${s.gateStarts} gate starts, longest wait for a key's turn ${s.longestGapS} s`,
      );
    }
    return result;
  } catch (error) {
    for (const t of targets) console.error(`--- ${t.label} (wrangler dev) output ---\n${t.output.slice(-3000)}`);
    throw error;
  } finally {
    targets.forEach((t) => t.stop());
  }
}

/**
 * The budget line of `npm run bench`: once a key's gate knows where its agency lives, it does not
 * ask again (none of its gates restarted in the window: a restart reads the directory, rightly).
 */
export function directoryReadsBudget(result) {
  const { steady } = result.current;
  const before = result.baseline ? ` (baseline ${result.baseline.steady.perThousand})` : "";
  return {
    budget: `directory reads per 1,000 requests over ${result.keys.toLocaleString("en-US")} warm keys for ${result.seconds} s = 0`,
    value: `${steady.perThousand}${before}; ${steady.gateStarts} gate restarts, longest turn ${steady.longestGapS} s`,
    ok: steady.gateStarts > 0 ? null : steady.reads === 0,
  };
}

export function printDirectoryReads(result) {
  if (!result) return;
  const sides = ["current", "baseline"].filter((s) => result[s]);
  console.log(
    `directory reads, ${result.keys.toLocaleString("en-US")} keys asking GET /contacts?limit=1, ${result.connections} connections ` +
      `(scripts/bench/directory-reads.mjs): each key once (cold gates), then all in turn for ${result.seconds} s (warm gates):`,
  );
  const header = `${"".padEnd(10)}${"cold requests".padStart(15)}${"reads".padStart(7)}${"steady requests".padStart(17)}${"reads".padStart(7)}${"per 1,000".padStart(11)}${"gate starts".padStart(13)}${"longest turn s".padStart(16)}`;
  console.log(`${header}\n${"-".repeat(header.length)}`);
  for (const side of sides) {
    const { cold, steady } = result[side];
    console.log(
      `${side.padEnd(10)}${String(cold.requests).padStart(15)}${String(cold.reads).padStart(7)}${String(steady.requests).padStart(17)}` +
        `${String(steady.reads).padStart(7)}${String(steady.perThousand).padStart(11)}${String(steady.gateStarts).padStart(13)}${String(steady.longestGapS).padStart(16)}`,
    );
  }
  console.log("");
}

// Alone: `node scripts/bench/directory-reads.mjs`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  const log = (line) => console.log(`\x1b[35m[bench directory ${Math.round((Date.now() - started) / 1000)}s]\x1b[0m ${line}`);
  const baseline = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
  const result = await measureDirectoryReads({ out: join(ROOT, ".bench"), log, baseline, connections: Number(process.env.BENCH_CONNECTIONS || 10) });
  printDirectoryReads(result);
  const budget = directoryReadsBudget(result);
  console.log(`${budget.ok === null ? "  -  " : budget.ok ? "PASS " : "MISS "} ${budget.budget}  ${budget.value}`);
}

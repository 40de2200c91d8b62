#!/usr/bin/env node
// `npm run bench`: the Worker under wrangler (workerd) on loopback, seeded with one agency
// of 1,000 and one of 100,000 contacts, driven by autocannon. Also measures, side by side,
// a hand-written reference Worker doing the same storage work as `GET /contacts`
// (scripts/bench/reference/), and, with BENCH_BASELINE=<checkout>, every scenario against
// another checkout of this project (before/after). Prints the tables and budgets and writes
// .bench/results.json. The exit code is 0 whatever the budgets say, unless the run itself
// failed (speed is a measurement, not a test).
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { BUDGET_WARMUP_SECONDS, FEW_REQUESTS, alternate, budgetRounds, measure, metrics } from "./bench/measure.mjs";
import { measureDeepPages } from "./bench/lists.mjs";
import { bulkBudgets, bulkLines, measureBulk, startUnindexed } from "./bench/bulk.mjs";
import { mcpBudgets, mcpLines, measureMcp } from "./bench/mcp.mjs";
import {
  REFERENCE_SIZE,
  baselineSideOf,
  compareWithReference,
  projectScenario,
  referenceBudget,
  referenceLines,
  referenceScenario,
} from "./bench/reference-compare.mjs";
import { measureOAuth } from "./bench/oauth.mjs";
import { measureSms, seedSmsNumbers, smsBenchVars, smsLines, startFakeTwilio } from "./bench/sms.mjs";
import { SEARCH, seedBenchmark } from "./bench/seed.mjs";
import { measureCronSlope } from "./bench/cron-slope.mjs";
import { measureStorage } from "./bench/storage.mjs";
import { measureMove, moveBudget, printMove } from "./bench/move.mjs";
import { directoryReadsBudget, measureDirectoryReads, printDirectoryReads } from "./bench/directory-reads.mjs";
import { Target, baselineConfig, compatibilityDate, runnableConfig } from "./bench/servers.mjs";
import { buildFloor, bundleSizeOf, measureStartup, startupBudgets, startupLines } from "./bench/startup.mjs";
import { nodeBinary, wranglerEnv } from "./lib/wrangler.mjs";
import { ROOT, ensureDevVars } from "./lib/dev-vars.mjs";

const PORT = Number(process.env.BENCH_PORT || 8799);
const RECEIVER_PORT = PORT + 1;
const REFERENCE_PORT = PORT + 2;
const BASELINE_PORT = PORT + 3;
const OUT = join(ROOT, ".bench");
const DURATION = Number(process.env.BENCH_SECONDS || 8);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS || 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
/** Side-by-side comparisons: rounds (at least 3), and each run's measured and warm-up seconds. */
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS || 3));
const AB_SECONDS = Number(process.env.BENCH_AB_SECONDS || 4);
const AB_WARMUP = Number(process.env.BENCH_AB_WARMUP_SECONDS || 1);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || 500);
const SIZES = [1_000, 100_000];
const CRON_SHARDS = (process.env.BENCH_CRON_SHARDS || "2,8,32").split(",").map(Number);
const CRON_PORT = PORT + 4;
/** The fake Twilio both Workers send SMS to (scripts/bench/sms.mjs). */
const TWILIO_PORT = PORT + 5;
/** The Worker the move scenario moves agencies on (scripts/bench/move.mjs). */
const MOVE_PORT = PORT + 6;
/** The current Worker without the search index's triggers (scripts/bench/bulk.mjs). */
const UNINDEXED_PORT = PORT + 7;
const LIST = "GET /contacts?limit=20";
const BY_NAME = `GET /contacts?q=${SEARCH.last}&limit=20`;
const BY_TAG = `GET /contacts?tag=${SEARCH.tag}&limit=20`;

const started = Date.now();
// Other work on the machine skews every number: the load averages at the start and the end are
// reported with the results.
const loadAtStart = loadavg().map((n) => +n.toFixed(2));
const log = (line) => console.log(`\x1b[35m[bench ${Math.round((Date.now() - started) / 1000)}s]\x1b[0m ${line}`);
const thousands = (n) => n.toLocaleString("en-US");

function nyDate(offsetDays) {
  return new Date(Date.now() + offsetDays * 86_400_000).toLocaleDateString("en-CA", { timeZone: "America/New_York" });
}

/** A page of `limit` contacts of `total`, each passing `each`. */
const page = (total, limit, each, what) => (body) => {
  if (!Array.isArray(body?.contacts)) return `no contacts in the answer: ${JSON.stringify(body).slice(0, 200)}`;
  if (body.contacts.length !== limit) return `expected a page of ${limit} contacts, got ${body.contacts.length}`;
  if (total !== null && body.pagination?.total !== total) return `expected pagination.total ${total}, got ${body.pagination?.total}`;
  const wrong = body.contacts.find((c) => !each(c));
  return wrong ? `a listed contact is not ${what}: ${JSON.stringify(wrong).slice(0, 200)}` : undefined;
};

/**
 * The scenarios, for one agency, in the order they run: the reads that the writes would
 * disturb (a growing table) first. `body` may be a function of the request number; `read`
 * scenarios are measured at every size, the others against the small agency only.
 */
function scenarios(agency) {
  const auth = { Authorization: `Bearer ${agency.token}` };
  let n = 0;
  const unique = () => `${Date.now().toString(36)}-${(n++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return [
    { name: LIST, method: "GET", path: "/api/v2/contacts?limit=20", headers: auth, read: true, check: page(null, 20, () => true, "") },
    {
      name: BY_NAME,
      method: "GET",
      path: `/api/v2/contacts?q=${SEARCH.last}&limit=20`,
      headers: auth,
      read: true,
      check: page(SEARCH.count, 20, (c) => c.last_name === SEARCH.last, `named ${SEARCH.last}`),
    },
    {
      name: BY_TAG,
      method: "GET",
      path: `/api/v2/contacts?tag=${SEARCH.tag}&limit=20`,
      headers: auth,
      read: true,
      check: page(SEARCH.count, 20, (c) => c.tags.includes(SEARCH.tag), `tagged ${SEARCH.tag}`),
    },
    { name: "GET /contacts/{contact_uuid}", method: "GET", path: `/api/v2/contacts/${agency.contactId}`, headers: auth, read: true },
    {
      name: "POST /contacts",
      method: "POST",
      path: "/api/v2/contacts",
      headers: { ...auth, "Content-Type": "application/json" },
      body: () => JSON.stringify({ first_name: "Bench", last_name: "Writer", email: `w-${unique()}@bench.example`, tags: ["bench"] }),
    },
    {
      name: "GET /calendar/availability (30 days)",
      method: "GET",
      path: `/api/v2/calendar/availability?from=${nyDate(1)}&to=${nyDate(30)}`,
      headers: auth,
      read: true,
    },
    { name: "GET /voice-ai/calls", method: "GET", path: "/api/v2/voice-ai/calls", headers: auth, read: true },
    {
      name: "POST /voice-ai/calls",
      method: "POST",
      path: "/api/v2/voice-ai/calls",
      headers: { ...auth, "Content-Type": "application/json" },
      body: () => JSON.stringify({ phone: "+14155550123", first_name: "Bench", last_name: "Caller", delay_seconds: 3600 }),
    },
  ];
}

const FLOOR = { name: "GET /health", method: "GET", path: "/health", headers: {} };

/** Two servers' scenarios measured side by side for ROUNDS rounds, each round logged. */
function abRounds(a, b) {
  return alternate([a, b], {
    rounds: ROUNDS,
    warmup: AB_WARMUP,
    seconds: AB_SECONDS,
    connections: CONNECTIONS,
    onRound: (r, round) => log(`  round ${r}: ${a.key} ${round[a.key].rps} req/s, ${b.key} ${round[b.key].rps} req/s`),
  });
}

/**
 * Delivery throughput: a loopback receiver registered for `contact.created`, then
 * WEBHOOK_EVENTS contacts created over 10 connections. Reports deliveries per second over the
 * window from the first to the last delivery, and each event's latency from its create's
 * response to its delivery.
 */
async function webhookThroughput(base, agency) {
  const arrivals = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        arrivals.set(event.data.object.contact_uuid, performance.now());
      } catch {
        // not an event: ignore
      }
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(RECEIVER_PORT, "127.0.0.1", resolve));
  try {
    const auth = { Authorization: `Bearer ${agency.token}`, "Content-Type": "application/json" };
    const endpoint = await fetch(`${base}/api/v2/webhook-endpoints`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, events: ["contact.created"] }),
    });
    if (endpoint.status !== 201) throw new Error(`creating the webhook endpoint: HTTP ${endpoint.status} ${await endpoint.text()}`);
    const created = new Map();
    let next = 0;
    const worker = async () => {
      while (next < WEBHOOK_EVENTS) {
        const i = next++;
        const res = await fetch(`${base}/api/v2/contacts`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ first_name: "Hook", last_name: `Bench ${i}`, email: `hook-${Date.now()}-${i}@bench.example` }),
        });
        const body = await res.json();
        if (res.status !== 201) throw new Error(`POST /contacts: HTTP ${res.status} ${JSON.stringify(body)}`);
        created.set(body.contact.contact_uuid, performance.now());
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const deadline = Date.now() + 60_000;
    // Counted by the contacts this run created: any other contact.created event that reaches the
    // receiver is not one of this run's 500.
    const deliveredCount = () => [...created.keys()].filter((id) => arrivals.has(id)).length;
    while (deliveredCount() < created.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const times = [...arrivals.values()].sort((a, b) => a - b);
    const latencies = [...created].filter(([id]) => arrivals.has(id)).map(([id, at]) => Math.max(0, arrivals.get(id) - at)).sort((a, b) => a - b);
    const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
    const window = (times.at(-1) - times[0]) / 1000;
    return {
      events: created.size,
      delivered: deliveredCount(),
      eventsPerSecond: window > 0 ? Math.round(arrivals.size / window) : null,
      p50: pct(50),
      p99: pct(99),
    };
  } finally {
    server.close();
  }
}

function bundleSize(target, dist) {
  target.build(dist);
  return bundleSizeOf(dist);
}

/** The commit a checkout is at, with `+changes` when its tracked files differ from it. */
function commitOf(dir) {
  try {
    const git = (args) => execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" }).toString().trim();
    return `${git(["rev-parse", "--short", "HEAD"])}${git(["status", "--porcelain", "--untracked-files=no"]) ? "+changes" : ""}`;
  } catch {
    return null;
  }
}

/** The operator token of the benchmark's own server: it connects an app to measure OAuth tokens. */
const BENCH_ADMIN_TOKEN = "bench-admin-token";
const BENCH_VARS = { LOG_LEVEL: "silent", BENCH_METRICS: "on", ALLOW_LOOPBACK_WEBHOOKS: "true", ...smsBenchVars(TWILIO_PORT) };

/**
 * One run at a time: two would share the ports and wipe each other's .bench/ state mid-run
 * (the other run's keys then answer 401). A lock file names the running one's process.
 */
function lock() {
  mkdirSync(OUT, { recursive: true });
  const path = join(OUT, "lock");
  const isAlive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!existsSync(path)) {
      try {
        writeFileSync(path, String(process.pid), { flag: "wx" });
        process.on("exit", () => rmSync(path, { force: true }));
        return;
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
      }
    }
    const pid = Number(readFileSync(path, "utf8"));
    if (pid && isAlive(pid)) throw new Error(`another npm run bench is running (process ${pid}, ${path}); wait for it to finish`);
    rmSync(path, { force: true }); // a stale lock: its run is gone
  }
  throw new Error(`could not take ${path}`);
}

async function main() {
  lock();
  if (BASELINE && !existsSync(join(BASELINE, "wrangler.toml"))) throw new Error(`BENCH_BASELINE=${BASELINE} is not a checkout of this project`);
  const projectConfig = join(ROOT, "wrangler.toml");
  const current = new Target({ label: "current", port: PORT, config: projectConfig, root: ROOT, state: join(OUT, "state"), vars: { ...BENCH_VARS, ADMIN_TOKEN: BENCH_ADMIN_TOKEN } });
  const reference = new Target({
    label: "reference",
    port: REFERENCE_PORT,
    // Run from a copy under .bench/, so wrangler's scratch files stay out of scripts/.
    config: runnableConfig(join(ROOT, "scripts", "bench", "reference", "wrangler.toml"), join(OUT, "reference")),
    root: ROOT,
    state: join(OUT, "reference", "state"),
    envFile: join(ROOT, ".dev.vars"),
    ready: "/contacts",
    devArgs: ["--compatibility-date", compatibilityDate(projectConfig)],
  });
  const baseline = BASELINE
    ? new Target({
        label: "baseline",
        port: BASELINE_PORT,
        config: baselineConfig(BASELINE, join(OUT, "baseline")),
        root: BASELINE,
        state: join(OUT, "baseline", "state"),
        envFile: join(BASELINE, ".dev.vars"),
        vars: BENCH_VARS,
      })
    : null;
  const targets = [current, reference, baseline].filter(Boolean);
  process.on("exit", () => targets.forEach((t) => t.stop()));
  process.on("SIGINT", () => process.exit(130));

  log(`applying the migrations to fresh local D1s: ${targets.map((t) => `${t.label} ${t.state.slice(ROOT.length)}`).join(", ")}`);
  const [file, refFile, baseFile] = await Promise.all([current.migrate(), reference.migrate(), baseline?.migrate()]);
  // The checkout's .dev.vars (read by the current and the reference Worker) gets a TOKEN_PEPPER if it
  // has none, as `npm run dev` would: the Worker serves nothing without one.
  const pepper = ensureDevVars().vars.TOKEN_PEPPER;
  log(`seeding current: ${SIZES.map(thousands).join(" and ")} contacts`);
  const agencies = seedBenchmark(file, { pepper, sizes: SIZES });
  seedSmsNumbers(file, agencies);
  log(`seeding the reference Worker: ${thousands(REFERENCE_SIZE)} contacts`);
  const [refAgency] = seedBenchmark(refFile, { pepper, sizes: [REFERENCE_SIZE] });
  let baseAgencies = null;
  if (baseline) {
    log(`seeding baseline ${BASELINE} (${commitOf(BASELINE)}): ${SIZES.map(thousands).join(" and ")} contacts`);
    // A fresh worktree has no .dev.vars: without a TOKEN_PEPPER a Worker of issue 29 or later serves nothing.
    const basePepper = ensureDevVars(join(BASELINE, ".dev.vars")).vars.TOKEN_PEPPER;
    baseAgencies = seedBenchmark(baseFile, { pepper: basePepper, sizes: SIZES });
    seedSmsNumbers(baseFile, baseAgencies);
  }

  const twilio = await startFakeTwilio(TWILIO_PORT);
  process.on("exit", () => void twilio.close());
  log(`starting wrangler dev: ${targets.map((t) => `${t.label} ${t.base}`).join(", ")}`);
  try {
    for (const t of targets) await t.start();
    await Promise.all(targets.map((t) => t.waitReady()));
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      commit: commitOf(ROOT),
      connections: CONNECTIONS,
      seconds: baseline ? AB_SECONDS : DURATION,
      warmupSeconds: baseline ? AB_WARMUP : WARMUP,
      rounds: ROUNDS,
      abSeconds: AB_SECONDS,
      abWarmupSeconds: AB_WARMUP,
      budgetWarmupSeconds: BUDGET_WARMUP_SECONDS,
      scenarios: [],
    };
    const before = baseline ? { dir: BASELINE, commit: commitOf(BASELINE), scenarios: [] } : null;

    /** One scenario on the current Worker, or A B A B against the baseline when there is one. */
    const run = async (name, size, scenario, baseScenario) => {
      const where = size ? ` @ ${thousands(size)} contacts` : "";
      if (!baseline) {
        log(`${name}${where}`);
        return { current: await measure(current.base, scenario, { warmup: WARMUP, seconds: DURATION, connections: CONNECTIONS }) };
      }
      log(`${name}${where}: current vs baseline, ${ROUNDS} rounds A B A B`);
      const { rounds, medians } = await abRounds(
        { key: "current", base: current.base, scenario },
        { key: "baseline", base: baseline.base, scenario: baseScenario },
      );
      return {
        current: { ...medians.current, rounds: rounds.map((r) => r.current) },
        baseline: { ...medians.baseline, rounds: rounds.map((r) => r.baseline) },
      };
    };

    log(`floor: GET /health (${CONNECTIONS} connections)`);
    const floor = await run("GET /health (floor)", null, FLOOR, FLOOR);
    results.scenarios.push({ name: "GET /health (floor)", size: null, ...floor.current, ratio: 1 });
    before?.scenarios.push({ name: "GET /health (floor)", size: null, ...floor.baseline, ratio: 1 });

    results.reference = await compareWithReference({
      project: { base: current.base, scenario: projectScenario(agencies[0]), cpu: () => current.cpuSeconds() },
      reference: { base: reference.base, scenario: referenceScenario(refAgency), cpu: () => reference.cpuSeconds() },
      // The older checkout in the same rounds (project, reference, baseline; then backwards): its ratio is the "before".
      baseline: baseline && {
        base: baseline.base,
        scenario: projectScenario(baseAgencies[0], "GET /contacts?limit=20 (baseline)"),
        cpu: () => baseline.cpuSeconds(),
      },
      rounds: budgetRounds(ROUNDS),
      warmup: BUDGET_WARMUP_SECONDS,
      seconds: AB_SECONDS,
      connections: CONNECTIONS,
      log,
    });
    if (before) before.reference = baselineSideOf(results.reference);
    // Done with the reference Worker: an idle wrangler dev still takes memory and some CPU.
    reference.stop();

    const bySize = agencies.map((agency, i) => ({ agency, list: scenarios(agency), baseList: baseAgencies && scenarios(baseAgencies[i]) }));
    for (let i = 0; i < bySize[0].list.length; i++) {
      for (const { agency, list, baseList } of bySize) {
        const scenario = list[i];
        const row = { name: scenario.name, size: agency.contacts };
        const currentMetrics = await metrics(current.base, scenario, `${scenario.name} @ ${agency.contacts} [current]`);
        const baseMetrics = baseline ? await metrics(baseline.base, baseList[i], `${scenario.name} @ ${agency.contacts} [baseline]`) : null;
        // Throughput at both sizes for reads; writes once, against the small agency.
        const measured = scenario.read || agency === bySize[0].agency ? await run(scenario.name, agency.contacts, scenario, baseList?.[i]) : null;
        const withRatio = (load, floorLoad) => (load ? { ...load, ratio: +(load.rps / floorLoad.rps).toFixed(2) } : { ratio: null });
        results.scenarios.push({ ...row, ...withRatio(measured?.current, floor.current), ...currentMetrics });
        before?.scenarios.push({ ...row, ...withRatio(measured?.baseline, floor.baseline), ...baseMetrics });
      }
    }

    // Before the webhooks: their endpoint would also receive the bulk scenario's events.
    const side = { rounds: ROUNDS, warmup: AB_WARMUP, seconds: AB_SECONDS, connections: CONNECTIONS, log };
    results.lists = { deep: await measureDeepPages(current.base, agencies[agencies.length - 1], side) };
    results.bulk = await bulkScenario(current, agencies[0], baseline && { target: baseline, agency: baseAgencies[0] }, pepper, side);
    const budgetSide = { ...side, rounds: budgetRounds(ROUNDS), warmup: BUDGET_WARMUP_SECONDS };
    results.mcp = await measureMcp(current.base, agencies[0], budgetSide, baseline ? { base: baseline.base, agency: baseAgencies[0] } : null);
    results.oauth = await measureOAuth(current.base, agencies[0], { ...side, adminToken: BENCH_ADMIN_TOKEN, multiplier: 10_000 });

    log(`webhook delivery: ${WEBHOOK_EVENTS} contact.created events to a loopback receiver`);
    results.webhooks = await webhookThroughput(current.base, agencies[0]);
    if (baseline) {
      log("webhook delivery, baseline");
      before.webhooks = await webhookThroughput(baseline.base, baseAgencies[0]);
    }
    // The direct send of before the queue is the baseline's: measured only with BENCH_BASELINE.
    results.sms = await measureSms({ current, agency: agencies[0], baseline, baseAgency: baseAgencies?.[0], twilio, ...side });
    targets.forEach((t) => t.stop());
    log("storage per record (a fresh migrated SQLite database, 10,000 of each)");
    results.storage = measureStorage(join(ROOT, "migrations"));
    results.cronSlope = await measureCronSlope({ counts: CRON_SHARDS, port: CRON_PORT, out: OUT, log });
    results.move = await measureMove({ port: MOVE_PORT, out: OUT, log, connections: CONNECTIONS });
    // Its own Workers (the current checkout and BENCH_BASELINE's), side by side, on ports of their own.
    results.directoryReads = await measureDirectoryReads({ out: OUT, log, baseline: BASELINE, connections: CONNECTIONS });
    log("bundle size (wrangler deploy --dry-run)");
    results.bundle = bundleSize(current, join(OUT, "dist"));
    if (baseline) before.bundle = bundleSize(baseline, join(OUT, "baseline", "dist"));
    const floorWorker = buildFloor({ out: join(OUT, "floor"), projectConfig, node: nodeBinary(), wranglerJs: join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"), env: wranglerEnv() });
    const builtWorkers = [{ label: "current", dist: join(OUT, "dist"), config: projectConfig }];
    if (baseline) builtWorkers.push({ label: "baseline", dist: join(OUT, "baseline", "dist"), config: baseline.config });
    results.startup = await measureStartup({ workers: builtWorkers, floor: floorWorker, out: join(OUT, "startup"), root: ROOT, log });
    if (before) before.startup = { rounds: results.startup.rounds, floor: results.startup.floor, baseline: results.startup.baseline };
    results.budgets = budgets(results);
    if (before) {
      before.budgets = budgets(before, "baseline");
      results.baseline = before;
    }
    results.elapsedSeconds = Math.round((Date.now() - started) / 1000);
    results.loadAverage = { start: loadAtStart, end: loadavg().map((n) => +n.toFixed(2)) };
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    print(results);
  } catch (error) {
    for (const t of targets) console.error(`--- ${t.label} (wrangler dev) output ---\n${t.output.slice(-3000)}`);
    throw error;
  } finally {
    targets.forEach((t) => t.stop());
    await twilio.close();
  }
}

function find(results, name, size) {
  const found = results.scenarios.find((s) => s.name === name && s.size === size);
  if (!found) throw new Error(`no result for ${name} at ${size}`);
  return found;
}

/** Growth budgets of one scenario from the small agency to the large one. */
function growth(results, name) {
  const [small, large] = SIZES;
  const a = find(results, name, small);
  const b = find(results, name, large);
  return [
    { budget: `rows read at 100k <= 1.2x at 1k (${name})`, value: `${b.rowsRead} vs ${a.rowsRead}`, ok: b.rowsRead <= 1.2 * a.rowsRead },
    { budget: `p99 at 100k <= 1.3x p99 at 1k (${name})`, value: `${b.p99} vs ${a.p99} ms`, ok: b.p99 <= 1.3 * Math.max(a.p99, 1) },
  ];
}

/** The cron's own work must not grow with the shards (each shard's sweep runs in its own invocation). */
function cronBudgets(results) {
  const rows = results.cronSlope ?? [];
  if (rows.length === 0) return [];
  const trips = rows.map((r) => r.cron.d1RoundTrips);
  return [
    {
      budget: `one cron run's own D1 round trips flat across ${rows.map((r) => r.shards).join("/")} shards`,
      value: trips.join(" / "),
      ok: Math.max(...trips) === Math.min(...trips),
    },
    {
      budget: "every due call on every shard queued by one cron run",
      value: rows.map((r) => `${r.callsQueued}/${r.callsDue}`).join(", "),
      ok: rows.every((r) => r.callsQueued === r.callsDue),
    },
    {
      budget: "a shard's sweep well inside one invocation's 1,000 D1 queries (x4 per batch)",
      value: `max ${Math.max(...rows.map((r) => r.sweep.d1StatementsMax))} statements per shard`,
      ok: rows.every((r) => r.sweep.d1StatementsMax * 4 < 1000),
    },
  ];
}

function budgets(results, side = "current") {
  const [small] = SIZES;
  const reads = results.scenarios.filter((s) => s.size !== null && s.d1RoundTrips !== undefined && s.name.startsWith("GET"));
  const post = find(results, "POST /contacts", small);
  const ref = results.reference;
  return [
    referenceBudget(ref),
    ...growth(results, LIST),
    ...growth(results, BY_NAME),
    ...growth(results, BY_TAG),
    {
      budget: "<= 2 storage round trips per authenticated read (1 gate call + D1)",
      value: `max ${1 + Math.max(...reads.map((s) => s.d1RoundTrips))}`,
      ok: reads.every((s) => 1 + s.d1RoundTrips <= 2),
    },
    ...startupBudgets(results, side),
    {
      budget: "an event costs one statement in its write's batch (POST /contacts)",
      value: `${post.d1RoundTrips} trip, ${post.d1Statements} statements`,
      ok: post.d1RoundTrips === 1,
    },
    {
      budget: "every webhook event delivered",
      value: `${results.webhooks.delivered}/${results.webhooks.events}`,
      ok: results.webhooks.delivered === results.webhooks.events,
    },
    ...cronBudgets(results),
    ...(results.move ? [moveBudget(results.move)] : []),
    ...listBudgets(results),
    ...oauthBudgets(results),
    ...smsBudgets(results),
    ...bulkBudgets(results.bulk),
    ...mcpBudgets(results.mcp),
    // Last: the baseline has no line of its own for it (this one names both figures).
    ...(results.directoryReads ? [directoryReadsBudget(results.directoryReads)] : []),
  ];
}

/**
 * Bulk upsert against single POSTs on the current Worker, the baseline's when there is one, and
 * the current one without the search index's triggers, started for this scenario alone.
 */
async function bulkScenario(current, agency, baseline, pepper, side) {
  const unindexed = await startUnindexed({ port: UNINDEXED_PORT, out: OUT, pepper, sizes: SIZES });
  try {
    await unindexed.target.waitReady();
    const workers = [
      { key: "current", label: "current", base: current.base, agency },
      ...(baseline ? [{ key: "baseline", label: "baseline", base: baseline.target.base, agency: baseline.agency }] : []),
      { key: "unindexed", label: "without search index", base: unindexed.target.base, agency: unindexed.agency },
    ];
    return await measureBulk(workers, side);
  } finally {
    unindexed.target.stop();
  }
}

/** Outbound SMS through the queue (issue 29): nothing accepted is lost or sent twice, and accepting does not wait for Twilio. */
function smsBudgets(results) {
  const sms = results.sms;
  if (!sms?.drained) return [];
  const d = sms.drained;
  return [
    { budget: "every SMS accepted through the queue sent, none twice", value: `${d.sent}/${d.accepted}, ${d.doubled} twice`, ok: d.sent === d.accepted && d.doubled === 0 },
    sms.ratio === null
      ? { budget: "SMS accepted per second: queue >= direct send", value: "direct send not measured (BENCH_BASELINE)", ok: null }
      : { budget: "SMS accepted per second: queue >= direct send", value: `${sms.ratio}x (${sms.queue.rps} vs ${sms.direct.rps} req/s)`, ok: sms.ratio >= 1 },
  ];
}

/** A request with a connected app's token costs what it costs with a key (issue 27). */
function oauthBudgets(results) {
  const oauth = results.oauth;
  if (!oauth) return [];
  const { key, oauth: app } = oauth;
  return [
    { budget: "OAuth token / API key requests per second >= 0.95 (GET /contacts)", value: `${oauth.ratio} (${app.rps} vs ${key.rps} req/s, median of per-round ratios)`, ok: oauth.ratio >= 0.95 },
    {
      budget: "OAuth token: the same rows read and D1 round trips as an API key",
      value: `${app.rowsRead} vs ${key.rowsRead} rows, ${app.d1RoundTrips} vs ${key.d1RoundTrips} trips`,
      ok: app.rowsRead === key.rowsRead && app.d1RoundTrips === key.d1RoundTrips,
    },
  ];
}

/** A cursor page costs what the first page costs, at any depth (issue 20). */
function listBudgets(results) {
  const deep = results.lists?.deep;
  if (!deep) return [];
  const { first, cursor } = deep.sides;
  const at = `depth ${thousands(deep.depth)} of ${thousands(deep.total)}`;
  return [
    { budget: `rows read by cursor at ${at} <= 1.2x the first page`, value: `${cursor.rowsRead} vs ${first.rowsRead}`, ok: cursor.rowsRead <= 1.2 * first.rowsRead },
    { budget: `p99 by cursor at ${at} <= 1.2x the first page`, value: `${cursor.p99} vs ${first.p99} ms`, ok: cursor.p99 <= 1.2 * Math.max(first.p99, 1) },
  ];
}

const pad = (v, n) => String(v).padEnd(n);
const padL = (v, n) => String(v).padStart(n);
const dash = (v) => v ?? "-";
/** Latencies of a scenario measured by a number of requests rather than a window get a `*`. */
const latency = (s, key) => (s[key] === undefined ? "-" : `${s[key]}${s.mode === "requests" ? "*" : ""}`);
const few = (s) => s.mode === "requests";
const FEW_NOTE = `* too slow to complete ${FEW_REQUESTS} requests in the measured window: measured (in some round) as ${FEW_REQUESTS} requests, each to completion`;

function print(results) {
  const header = `${pad("scenario", 38)}${padL("contacts", 9)}${padL("req/s", 8)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("x floor", 9)}${padL("rows read", 11)}${padL("D1 trips", 10)}${padL("D1 stmts", 10)}`;
  const how = results.baseline
    ? `medians of ${results.rounds} rounds of ${results.abWarmupSeconds} s warm-up + ${results.abSeconds} s, alternating with the baseline`
    : `${results.warmupSeconds} s warm-up + ${results.seconds} s measured`;
  console.log(`\ncurrent (${results.commit}), ${results.connections} connections, ${how}:\n${header}\n${"-".repeat(header.length)}`);
  for (const s of results.scenarios) {
    console.log(
      `${pad(s.name, 38)}${padL(s.size === null ? "-" : thousands(s.size), 9)}${padL(dash(s.rps), 8)}${padL(latency(s, "p50"), 8)}${padL(latency(s, "p99"), 8)}${padL(dash(s.ratio), 9)}${padL(dash(s.rowsRead), 11)}${padL(dash(s.d1RoundTrips), 10)}${padL(dash(s.d1Statements), 10)}`,
    );
  }
  if (results.scenarios.some((s) => s.p99 !== undefined && few(s))) console.log(FEW_NOTE);

  for (const line of referenceLines(results.reference, { warmupSeconds: results.budgetWarmupSeconds ?? results.abWarmupSeconds, seconds: results.abSeconds })) console.log(line);

  const w = results.webhooks;
  const webhookLine = (w) =>
    `${w.delivered}/${w.events} events delivered to a loopback receiver at ${w.eventsPerSecond} events/s ` +
    `(while ${results.connections} connections create them); from the create's response to the delivery p50 ${w.p50} ms, p99 ${w.p99} ms`;
  console.log(`\nwebhooks: ${webhookLine(w)}`);
  console.log(`\nbundle: ${results.bundle.rawKiB} KiB raw, ${results.bundle.gzipKiB} KiB gzipped\n`);
  for (const line of startupLines(results.startup)) console.log(line);
  printScaling(results);
  printMove(results.move);
  printDirectoryReads(results.directoryReads);
  printLists(results);
  printMcp(results);
  printOAuth(results);
  if (results.sms) for (const line of smsLines(results.sms, results.connections)) console.log(line);

  const base = results.baseline;
  if (base) printBeforeAfter(results, base, webhookLine);

  const mark = (ok) => (ok === null || ok === undefined ? "  -  " : ok ? "PASS " : "MISS ");
  for (const [i, b] of results.budgets.entries()) {
    // A budget the baseline has no figures for (the cron across shards) shows none.
    const was = base?.budgets[i];
    const then = base ? `   (before: ${was ? `${mark(was.ok).trim()} ${was.value}` : "-"})` : "";
    console.log(`${mark(b.ok)} ${pad(b.budget, 72)} ${b.value}${then}`);
  }
  const { start, end } = results.loadAverage;
  console.log(`\nwritten to .bench/results.json (${results.elapsedSeconds} s; load average 1/5/15 min ${start.join(" ")} at the start, ${end.join(" ")} at the end)`);
}

/** Deep pages and bulk upsert (docs/api-guide.md, Paging, syncing and bulk upsert). */
function printLists(results) {
  const { deep } = results.lists ?? {};
  const { bulk } = results;
  if (deep) {
    console.log(`the last page of ${thousands(deep.total)} contacts (depth ${thousands(deep.depth)}) by cursor and by page number, against the first page; medians of ${deep.sides.first.rounds.length} rounds side by side:`);
    const header = `${pad("request", 52)}${padL("req/s", 8)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("rows read", 11)}${padL("D1 trips", 10)}`;
    console.log(`${header}
${"-".repeat(header.length)}`);
    for (const s of Object.values(deep.sides)) {
      console.log(`${pad(s.name, 52)}${padL(s.rps, 8)}${padL(latency(s, "p50"), 8)}${padL(latency(s, "p99"), 8)}${padL(s.rowsRead, 11)}${padL(s.d1RoundTrips, 10)}`);
    }
    if (Object.values(deep.sides).some(few)) console.log(FEW_NOTE);
    console.log("");
  }
  for (const line of bulkLines(bulk, results.connections)) console.log(line);
}

function printOAuth(results) {
  const oauth = results.oauth;
  if (!oauth) return;
  console.log(`a connected app's OAuth token against an API key, one agency, ${results.connections} connections, medians of ${oauth.key.rounds.length} rounds side by side:`);
  const header = `${pad("request", 48)}${padL("req/s", 8)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("rows read", 11)}${padL("D1 trips", 10)}`;
  console.log(`${header}\n${"-".repeat(header.length)}`);
  for (const s of [oauth.key, oauth.oauth]) {
    console.log(`${pad(s.name, 48)}${padL(s.rps, 8)}${padL(latency(s, "p50"), 8)}${padL(latency(s, "p99"), 8)}${padL(s.rowsRead, 11)}${padL(s.d1RoundTrips, 10)}`);
  }
  console.log(`OAuth / key: ${oauth.ratio}x the requests per second (median of the rounds' ratios)\n`);
}

function printMcp(results) {
  if (results.mcp?.ratios) for (const line of mcpLines(results.mcp, results.connections)) console.log(line);
}

/** Storage per record and the cron across shards (docs/operations.md, Scaling). */
function printScaling(results) {
  const st = results.storage;
  if (st) {
    console.log(
      `storage per record (${thousands(st.records)} of each, fresh SQLite): contact ${thousands(st.perContact)} B, ` +
        `event ${thousands(st.perEvent)} B, call ${thousands(st.perCall)} B, message ${thousands(st.perMessage)} B\n`,
    );
  }
  const rows = results.cronSlope;
  if (!rows?.length) return;
  console.log("one cron run across shards (each with an agency whose calls fall due); D1 work from the Worker's own log lines:");
  const header = `${pad("shards", 8)}${padL("cron trips", 12)}${padL("cron ms", 9)}${padL("sweep trips", 13)}${padL("sweep stmts", 13)}${padL("sweep ms", 10)}${padL("calls queued", 14)}${padL("all swept ms", 14)}`;
  console.log(`${header}\n${"-".repeat(header.length)}`);
  for (const r of rows) {
    console.log(
      `${pad(r.shards, 8)}${padL(r.cron.d1RoundTrips, 12)}${padL(r.cron.ms, 9)}${padL(r.sweep.d1RoundTripsMedian, 13)}${padL(r.sweep.d1StatementsMax, 13)}` +
        `${padL(r.sweep.msMedian, 10)}${padL(`${r.callsQueued}/${r.callsDue}`, 14)}${padL(r.allSweptMs, 14)}`,
    );
  }
  console.log("(sweep: median round trips and ms per shard, most statements of any shard; all swept: from firing the cron to the last shard's sweep)\n");
}

function printBeforeAfter(results, base, webhookLine) {
  const change = (after, before) => (after == null || before == null || before === 0 ? "-" : `${after >= before ? "+" : ""}${Math.round(((after - before) / before) * 100)}%`);
  console.log(
    `before/after: baseline ${base.dir} (${base.commit}) vs current (${results.commit}); medians of ${results.rounds} rounds, A B A B, ` +
      `${results.abWarmupSeconds} s warm-up + ${results.abSeconds} s each`,
  );
  const header =
    `${pad("scenario", 38)}${padL("contacts", 9)}` +
    `${padL("req/s before", 14)}${padL("after", 7)}${padL("change", 8)}` +
    `${padL("p50 before", 12)}${padL("after", 7)}${padL("p99 before", 12)}${padL("after", 7)}` +
    `${padL("rows before", 13)}${padL("after", 7)}`;
  console.log(`${header}\n${"-".repeat(header.length)}`);
  for (const s of results.scenarios) {
    const b = base.scenarios.find((x) => x.name === s.name && x.size === s.size) ?? {};
    console.log(
      `${pad(s.name, 38)}${padL(s.size === null ? "-" : thousands(s.size), 9)}` +
        `${padL(dash(b.rps), 14)}${padL(dash(s.rps), 7)}${padL(change(s.rps, b.rps), 8)}` +
        `${padL(latency(b, "p50"), 12)}${padL(latency(s, "p50"), 7)}${padL(latency(b, "p99"), 12)}${padL(latency(s, "p99"), 7)}` +
        `${padL(dash(b.rowsRead), 13)}${padL(dash(s.rowsRead), 7)}`,
    );
  }
  if ([...results.scenarios, ...base.scenarios].some((s) => s.p99 !== undefined && few(s))) console.log(FEW_NOTE);
  console.log(`\nwebhooks before: ${webhookLine(base.webhooks)}`);
  console.log(`bundle before: ${base.bundle.rawKiB} KiB raw, ${base.bundle.gzipKiB} KiB gzipped\n`);
}

// `npm run bench -- --print`: prints the last run's tables again from .bench/results.json.
const run = process.argv.includes("--print") ? async () => print(JSON.parse(readFileSync(join(OUT, "results.json"), "utf8"))) : main;
run().catch((error) => {
  console.error(error);
  process.exit(1);
});

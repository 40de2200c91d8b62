#!/usr/bin/env node
// `npm run bench`: the Worker under wrangler (workerd) on loopback, seeded with one agency
// of 1,000 and one of 100,000 contacts, driven by autocannon. Prints a table and writes
// .bench/results.json. Budgets are checked and reported; the exit code is 0 either way
// unless the run itself failed (speed is a measurement, not a test).
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { findD1File, seedBenchmark } from "./bench/seed.mjs";
import { ROOT, readDevVars } from "./lib/dev-vars.mjs";
import { nodeBinary, spawnWrangler, wranglerEnv } from "./lib/wrangler.mjs";

const PORT = Number(process.env.BENCH_PORT || 8799);
const BASE = `http://127.0.0.1:${PORT}`;
const OUT = join(ROOT, ".bench");
const STATE = join(OUT, "state");
const DURATION = Number(process.env.BENCH_SECONDS || 8);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS || 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const SIZES = [1_000, 100_000];

const log = (line) => console.log(`\x1b[35m[bench]\x1b[0m ${line}`);
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const wrangler = (args) => execFileSync(nodeBinary(), [WRANGLER, ...args], { cwd: ROOT, env: wranglerEnv({ CI: "true" }), stdio: "pipe" });

async function waitForServer() {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${BASE}/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not answer /health within 120 s");
}

function nyDate(offsetDays) {
  return new Date(Date.now() + offsetDays * 86_400_000).toLocaleDateString("en-CA", { timeZone: "America/New_York" });
}

/** The scenarios, for one agency. `body` may be a function of the request number. */
function scenarios(agency) {
  const auth = { Authorization: `Bearer ${agency.token}` };
  let n = 0;
  const unique = () => `${Date.now().toString(36)}-${(n++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return [
    { name: "GET /contacts?limit=20", method: "GET", path: "/api/v2/contacts?limit=20", headers: auth, read: true },
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

function load(scenario, duration) {
  return new Promise((resolve, reject) => {
    const request = { method: scenario.method, path: scenario.path, headers: scenario.headers };
    if (scenario.body) request.setupRequest = (req) => ({ ...req, body: scenario.body() });
    autocannon(
      { url: BASE, connections: CONNECTIONS, duration, requests: [request], timeout: 30 },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function measureOne(scenario) {
  await load(scenario, WARMUP);
  const result = await load(scenario, DURATION);
  const statuses = {};
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count.count;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
  };
}

/** One instrumented request: D1 rows read and round trips, from the Worker's bench headers. */
async function rowsRead(scenario) {
  const init = { method: scenario.method, headers: { ...scenario.headers, "X-Bench-Rows-Read": "1" } };
  if (scenario.body) init.body = scenario.body();
  const res = await fetch(`${BASE}${scenario.path}`, init);
  const body = await res.text();
  const rows = res.headers.get("X-Bench-Rows-Read");
  const trips = res.headers.get("X-Bench-D1-Round-Trips");
  const statements = res.headers.get("X-Bench-D1-Statements");
  // A failed request or missing metrics would read as 0 and pass every budget: refuse it.
  if (!res.ok) throw new Error(`${scenario.name}: HTTP ${res.status} ${body.slice(0, 300)}`);
  if (rows === null || trips === null) throw new Error(`${scenario.name}: no benchmark metrics (is BENCH_METRICS on?)`);
  return { status: res.status, rowsRead: Number(rows), d1RoundTrips: Number(trips), d1Statements: Number(statements) };
}

const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || 500);
const RECEIVER_PORT = PORT + 1;

/**
 * Delivery throughput: a loopback receiver registered for `contact.created`, then
 * WEBHOOK_EVENTS contacts created over 10 connections. Reports deliveries per second over the
 * window from the first to the last delivery, and each event's latency from its create's
 * response to its delivery.
 */
async function webhookThroughput(agency) {
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
    const endpoint = await fetch(`${BASE}/api/v2/webhook-endpoints`, {
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
        const res = await fetch(`${BASE}/api/v2/contacts`, {
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
    while (arrivals.size < created.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const times = [...arrivals.values()].sort((a, b) => a - b);
    const latencies = [...created].filter(([id]) => arrivals.has(id)).map(([id, at]) => Math.max(0, arrivals.get(id) - at)).sort((a, b) => a - b);
    const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
    const window = (times.at(-1) - times[0]) / 1000;
    return {
      events: created.size,
      delivered: arrivals.size,
      eventsPerSecond: window > 0 ? Math.round(arrivals.size / window) : null,
      p50: pct(50),
      p99: pct(99),
    };
  } finally {
    server.close();
  }
}

function bundleSize() {
  const dist = join(OUT, "dist");
  rmSync(dist, { recursive: true, force: true });
  wrangler(["deploy", "--dry-run", "--outdir", dist]);
  let raw = 0;
  let gzipped = 0;
  for (const file of readdirSync(dist)) {
    if (!/\.(m?js|wasm)$/.test(file)) continue;
    const bytes = readFileSync(join(dist, file));
    raw += statSync(join(dist, file)).size;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  return { rawKiB: +(raw / 1024).toFixed(1), gzipKiB: +(gzipped / 1024).toFixed(1) };
}

const pad = (v, n) => String(v).padEnd(n);
const padL = (v, n) => String(v).padStart(n);

async function main() {
  rmSync(STATE, { recursive: true, force: true });
  mkdirSync(STATE, { recursive: true });
  log("applying migrations to a fresh local D1 (.bench/state)");
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", STATE]);
  log(`seeding ${SIZES.map((s) => s.toLocaleString("en-US")).join(" and ")} contacts`);
  const pepper = readDevVars().TOKEN_PEPPER;
  const agencies = seedBenchmark(findD1File(STATE), { pepper, sizes: SIZES });

  log(`starting wrangler dev on ${BASE}`);
  const child = spawnWrangler(
    [
      "dev", "--port", String(PORT), "--ip", "127.0.0.1", "--persist-to", STATE,
      "--var", "LOG_LEVEL:silent", "--var", "BENCH_METRICS:on", "--var", "ALLOW_LOOPBACK_WEBHOOKS:true",
    ],
    { stdio: "pipe" },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const stop = () => child.exitCode === null && child.kill("SIGTERM");
  process.on("exit", stop);
  process.on("SIGINT", () => process.exit(130));

  try {
    await waitForServer();
    const results = { date: new Date().toISOString(), node: process.version, connections: CONNECTIONS, seconds: DURATION, scenarios: [] };
    log(`floor: GET /health (${WARMUP}s warm-up, ${DURATION}s measured, ${CONNECTIONS} connections)`);
    const floor = await measureOne({ name: "GET /health", method: "GET", path: "/health", headers: {} });
    results.scenarios.push({ name: "GET /health (floor)", size: null, ...floor, ratio: 1 });

    const bySize = agencies.map((agency) => ({ agency, list: scenarios(agency) }));
    for (let i = 0; i < bySize[0].list.length; i++) {
      for (const { agency, list } of bySize) {
        const scenario = list[i];
        const metrics = await rowsRead(scenario);
        // Throughput at both sizes for reads; writes once, against the small agency.
        const measure = scenario.read || agency === bySize[0].agency;
        log(`${scenario.name} @ ${agency.contacts.toLocaleString("en-US")} contacts`);
        const load = measure ? await measureOne(scenario) : null;
        results.scenarios.push({
          name: scenario.name,
          size: agency.contacts,
          ...(load ?? {}),
          ratio: load ? +(load.rps / floor.rps).toFixed(2) : null,
          ...metrics,
        });
      }
    }
    log(`webhook delivery: ${WEBHOOK_EVENTS} contact.created events to a loopback receiver`);
    results.webhooks = await webhookThroughput(agencies[0]);
    log("bundle size (wrangler deploy --dry-run)");
    results.bundle = bundleSize();
    results.budgets = budgets(results);
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    print(results);
  } catch (error) {
    console.error(output.slice(-4000));
    throw error;
  } finally {
    stop();
  }
}

function find(results, name, size) {
  return results.scenarios.find((s) => s.name === name && s.size === size);
}

function budgets(results) {
  const [small, large] = SIZES;
  const listSmall = find(results, "GET /contacts?limit=20", small);
  const listLarge = find(results, "GET /contacts?limit=20", large);
  const reads = results.scenarios.filter((s) => s.size !== null && s.d1RoundTrips !== undefined && s.name.startsWith("GET"));
  return [
    { budget: "GET /contacts >= 50% of floor throughput", value: `${Math.round(listSmall.ratio * 100)}%`, ok: listSmall.ratio >= 0.5 },
    {
      budget: "rows read per list page at 100k <= 1.2x at 1k",
      value: `${listLarge.rowsRead} vs ${listSmall.rowsRead}`,
      ok: listLarge.rowsRead <= 1.2 * listSmall.rowsRead,
    },
    { budget: "p99 at 100k <= 1.3x p99 at 1k (GET /contacts)", value: `${listLarge.p99} vs ${listSmall.p99} ms`, ok: listLarge.p99 <= 1.3 * Math.max(listSmall.p99, 1) },
    {
      budget: "<= 2 storage round trips per authenticated read (1 gate call + D1)",
      value: `max ${1 + Math.max(...reads.map((s) => s.d1RoundTrips))}`,
      ok: reads.every((s) => 1 + s.d1RoundTrips <= 2),
    },
    { budget: "bundle < 400 KiB gzipped", value: `${results.bundle.gzipKiB} KiB`, ok: results.bundle.gzipKiB < 400 },
    {
      budget: "an event costs one statement in its write's batch (POST /contacts)",
      value: `${find(results, "POST /contacts", small).d1RoundTrips} trip, ${find(results, "POST /contacts", small).d1Statements} statements`,
      ok: find(results, "POST /contacts", small).d1RoundTrips === 1,
    },
    {
      budget: "every webhook event delivered",
      value: `${results.webhooks.delivered}/${results.webhooks.events}`,
      ok: results.webhooks.delivered === results.webhooks.events,
    },
  ];
}

function print(results) {
  const header = `${pad("scenario", 38)}${padL("contacts", 9)}${padL("req/s", 8)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("x floor", 9)}${padL("rows read", 11)}${padL("D1 trips", 10)}${padL("D1 stmts", 10)}`;
  console.log(`\n${header}\n${"-".repeat(header.length)}`);
  for (const s of results.scenarios) {
    console.log(
      `${pad(s.name, 38)}${padL(s.size?.toLocaleString("en-US") ?? "-", 9)}${padL(s.rps ?? "-", 8)}${padL(s.p50 ?? "-", 8)}${padL(s.p99 ?? "-", 8)}${padL(s.ratio ?? "-", 9)}${padL(s.rowsRead ?? "-", 11)}${padL(s.d1RoundTrips ?? "-", 10)}${padL(s.d1Statements ?? "-", 10)}`,
    );
  }
  const w = results.webhooks;
  console.log(
    `\nwebhooks: ${w.delivered}/${w.events} events delivered to a loopback receiver at ${w.eventsPerSecond} events/s ` +
      `(while ${CONNECTIONS} connections create them); from the create's response to the delivery p50 ${w.p50} ms, p99 ${w.p99} ms`,
  );
  console.log(`\nbundle: ${results.bundle.rawKiB} KiB raw, ${results.bundle.gzipKiB} KiB gzipped\n`);
  for (const b of results.budgets) console.log(`${b.ok ? "PASS" : "MISS"}  ${pad(b.budget, 66)} ${b.value}`);
  console.log(`\nwritten to .bench/results.json`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

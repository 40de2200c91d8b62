// The cron's work across shards (docs/operations.md, Scaling): for 2, 8 and 32 local shards, each
// with an agency whose calls fall due, one cron run is fired and measured from the Worker's own log
// lines (BENCH_METRICS=on counts each invocation's D1 round trips): the cron invocation itself,
// each shard's sweep (a `shard-sweeps` queue invocation of its own), and the time until the last
// shard has queued its due calls.
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../lib/dev-vars.mjs";
import { d1Bindings } from "../lib/d1-shards.mjs";
import { Target, runnableConfig } from "./servers.mjs";

const ADMIN_TOKEN = "bench-cron-admin";
const CALLS_PER_SHARD = 5;
const DAY = 86_400_000;

/** A copy of the project's config with `count` D1 bindings: its own, then DB_S03, DB_S04, ... */
function configWithShards(outDir, count) {
  const config = runnableConfig(join(ROOT, "wrangler.toml"), outDir, { suffix: `-cron${count}`, dropBuild: true });
  const own = d1Bindings(config);
  const extra = [];
  for (let i = own.length + 1; i <= count; i++) {
    const n = String(i).padStart(2, "0");
    extra.push(
      `\n[[d1_databases]]\nbinding = "DB_S${n}"\ndatabase_name = "bench-shard-${n}"\ndatabase_id = "00000000-0000-0000-0000-0000000001${n}"\nmigrations_dir = ${JSON.stringify(join(ROOT, "migrations"))}\n`,
    );
  }
  appendFileSync(config, extra.join(""));
  return config;
}

async function call(base, method, path, { token, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Registers every shard and gives each an agency with CALLS_PER_SHARD calls due at `dueAt`. */
async function seedShards(base, shards, dueAt) {
  const admin = (method, path, body) => call(base, method, `/admin/v1${path}`, { token: ADMIN_TOKEN, body });
  for (const shard of shards) {
    await admin("PUT", `/shards/${shard}`, { region: "wnam", open: true });
    const { agency } = await admin("POST", "/agencies", { name: `Cron ${shard}`, timezone: "America/New_York", shard });
    const { access_token: token } = await admin("POST", `/agencies/${agency.agency_uuid}/keys`, { name: "cron", scopes: ["*"], rate_limit_multiplier: 1000 });
    await admin("POST", `/agencies/${agency.agency_uuid}/voice-agents`, { name: "Ava", phone_numbers: ["+14155550100"] });
    await admin("POST", `/agencies/${agency.agency_uuid}/wallet/credit`, { amount_cents: 100_000 });
    await call(base, "PATCH", "/api/v2/settings", { token, body: { calling_hours: { start: "00:00", end: "24:00" } } });
    for (let i = 0; i < CALLS_PER_SHARD; i++) {
      await call(base, "POST", "/api/v2/voice-ai/calls", { token, body: { phone: "+14155550123", scheduled_at: new Date(dueAt).toISOString() } });
    }
  }
}

/** The Worker's JSON log lines with this `msg`, from wrangler's output. */
const logLines = (output, msg) =>
  output
    .split("\n")
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"))));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/** One shard count: a fresh Worker and state, seeded, one cron run fired and read back. */
async function measureOne(count, { port, out, log }) {
  const dir = join(out, `cron-${count}`);
  const target = new Target({
    label: `cron-${count}`,
    port,
    config: configWithShards(dir, count),
    root: ROOT,
    state: join(dir, "state"),
    // TOKEN_PEPPER: the Worker serves nothing without one.
    vars: { LOG_LEVEL: "info", BENCH_METRICS: "on", ADMIN_TOKEN, TOKEN_PEPPER: randomBytes(32).toString("base64url"), VOICE_PROVIDER: "simulated" },
  });
  try {
    log(`cron across ${count} shards: migrating ${count} local D1 databases`);
    await target.migrateAll();
    await target.start();
    await target.waitReady();
    const shards = d1Bindings(target.config);
    const dueAt = Date.now() + 2 * DAY;
    log(`cron across ${count} shards: an agency with ${CALLS_PER_SHARD} calls due on each`);
    await seedShards(target.base, shards, dueAt);
    target.output = "";
    const fired = Date.now();
    const res = await fetch(`${target.base}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent("* * * * *")}&time=${dueAt - 30_000}`);
    await res.arrayBuffer();
    const deadline = Date.now() + 180_000;
    let sweeps = [];
    while (Date.now() < deadline) {
      sweeps = logLines(target.output, "shard sweep");
      if (sweeps.length >= count) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [cron] = logLines(target.output, "cron");
    if (!cron || sweeps.length < count) throw new Error(`cron-${count}: saw ${sweeps.length} of ${count} shard sweeps\n${target.output.slice(-3000)}`);
    const lastDone = Math.max(...sweeps.map((s) => Date.parse(s.time)));
    return {
      shards: count,
      cron: { d1RoundTrips: cron.d1_round_trips, d1Statements: cron.d1_statements, ms: cron.ms },
      sweep: {
        d1RoundTripsMedian: median(sweeps.map((s) => s.d1_round_trips)),
        d1RoundTripsMax: Math.max(...sweeps.map((s) => s.d1_round_trips)),
        d1StatementsMax: Math.max(...sweeps.map((s) => s.d1_statements)),
        msMedian: median(sweeps.map((s) => s.ms)),
      },
      callsQueued: sweeps.reduce((n, s) => n + s.promoted, 0),
      callsDue: count * CALLS_PER_SHARD,
      allSweptMs: lastDone - fired,
    };
  } finally {
    target.stop();
  }
}

export async function measureCronSlope({ counts = [2, 8, 32], port, out, log }) {
  const rows = [];
  for (const count of counts) rows.push(await measureOne(count, { port, out, log }));
  return rows;
}

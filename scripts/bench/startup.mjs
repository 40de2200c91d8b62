// Startup of the deployable Worker (step 7 of `npm run bench`): the time a fresh workerd takes
// from its start to the first 200 of GET /health with the bundle `wrangler deploy --dry-run`
// builds, against a floor Worker with no dependencies (scripts/bench/floor/) built the same way,
// and with BENCH_BASELINE against the older checkout's bundle too. Each run is a new workerd
// process on its own port (one isolate, nothing warm), started straight from a config that
// embeds the built bundle: no wrangler, no bundling, no proxy in front, so what differs between
// the Workers is their script's compile and top-level run and their first request. The Workers
// take turns (rotating order) for BENCH_STARTUP_ROUNDS rounds; reported: the medians of the
// wall time and of workerd's CPU time up to that answer (Linux), and each Worker's margin over
// the floor and ratio to it.
//
// Alone: `node scripts/bench/startup.mjs` (builds the bundles itself; BENCH_BASELINE works too).
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { compatibilityDate, freePort, runIfMain } from "./servers.mjs";

export const STARTUP_ROUNDS = Math.max(3, Number(process.env.BENCH_STARTUP_ROUNDS || 15));
/** The budget of the deployable bundle, gzipped (what a fresh isolate fetches and compiles). */
export const BUNDLE_BUDGET_KIB = 300;
const READY_TIMEOUT_MS = 30_000;
const FLOOR_SOURCE = join(import.meta.dirname, "floor", "index.js");

/** Raw and gzipped size of a built bundle's modules (`wrangler deploy --dry-run --outdir`). */
export function bundleSizeOf(dist) {
  let raw = 0;
  let gzipped = 0;
  for (const file of readdirSync(dist)) {
    if (!/\.(m?js|wasm)$/.test(file)) continue;
    const bytes = readFileSync(join(dist, file));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  return { rawKiB: +(raw / 1024).toFixed(1), gzipKiB: +(gzipped / 1024).toFixed(1), gzipBytes: gzipped };
}

/** The config's compatibility flags (`compatibility_flags = [...]`). */
function compatibilityFlags(configPath) {
  const list = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(readFileSync(configPath, "utf8"))?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/**
 * Builds the floor Worker as the project's is built (wrangler deploy --dry-run, minified, the
 * project's compatibility date and flags) into `out`/dist.
 */
export function buildFloor({ out, projectConfig, node, wranglerJs, env }) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  copyFileSync(FLOOR_SOURCE, join(out, "index.js"));
  const flags = compatibilityFlags(projectConfig).map((f) => JSON.stringify(f)).join(", ");
  const config = join(out, "wrangler.toml");
  writeFileSync(
    config,
    `# Written by scripts/bench/startup.mjs; do not edit.\nname = "bench-floor"\nmain = "index.js"\n` +
      `compatibility_date = "${compatibilityDate(projectConfig)}"\ncompatibility_flags = [${flags}]\nminify = true\n`,
  );
  execFileSync(node, [wranglerJs, "deploy", "--dry-run", "--outdir", join(out, "dist"), "-c", config], { cwd: out, env, stdio: "pipe" });
  return { dist: join(out, "dist"), config };
}


/**
 * A workerd config serving the bundle in `dist` (copied next to it, as capnp embeds files by
 * relative path) with the project's compatibility date and flags; TOKEN_PEPPER is the one
 * binding GET /health needs (the Worker serves nothing without it).
 */
function writeWorkerdConfig({ dir, dist, configPath }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(dist).filter((f) => /\.(m?js|wasm)$/.test(f));
  const main = files.includes("index.js") ? "index.js" : files.find((f) => /\.m?js$/.test(f));
  const modules = [main, ...files.filter((f) => f !== main)].map((f) => {
    copyFileSync(join(dist, f), join(dir, f));
    return f.endsWith(".wasm") ? `(name = "${f}", wasm = embed "${f}")` : `(name = "${f}", esModule = embed "${f}")`;
  });
  const flags = compatibilityFlags(configPath).map((f) => JSON.stringify(f)).join(", ");
  const capnp = join(dir, "config.capnp");
  writeFileSync(
    capnp,
    `# Written by scripts/bench/startup.mjs; do not edit.
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(", ")} ],
  compatibilityDate = "${compatibilityDate(configPath)}",
  compatibilityFlags = [ ${flags} ],
  bindings = [ (name = "TOKEN_PEPPER", text = "bench-startup-pepper"), (name = "LOG_LEVEL", text = "silent") ],
);
`,
  );
  return capnp;
}

/** CPU time (user + system, ms) a process and all its threads have used so far; null off Linux. */
function cpuMs(pid) {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return null;
  let ns = 0;
  for (const tid of readdirSync(tasks)) {
    try {
      ns += Number(readFileSync(join(tasks, tid, "schedstat"), "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

/** One cold start: workerd started on `capnp`, timed to the first 200 of GET /health, then stopped. */
async function coldStart(workerd, capnp) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(workerd, ["serve", capnp, "--experimental", "--socket-addr", `http=127.0.0.1:${port}`], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((done) => child.once("exit", done));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited (${child.exitCode}) before answering:\n${stderr}`);
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`workerd did not answer /health within ${READY_TIMEOUT_MS / 1000} s:\n${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        await res.arrayBuffer();
        if (res.status === 200) {
          const ms = performance.now() - started;
          return { ms: +ms.toFixed(1), cpuMs: cpuMs(child.pid) };
        }
        throw new Error(`GET /health answered ${res.status}:\n${stderr}`);
      } catch (error) {
        if (error.message?.startsWith("GET /health")) throw error;
        // not listening yet
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round1 = (n) => (n === null ? null : +n.toFixed(1));

/**
 * Measures the floor and each Worker ({ label, dist, config }: a built bundle and the
 * wrangler.toml it was built from), in turns, `rounds` times. Returns the medians per Worker and,
 * for each but the floor, its margin over the floor and ratio to it (medians of the rounds').
 */
export async function measureStartup({ workers, floor, out, root, rounds = STARTUP_ROUNDS, log = console.log }) {
  const workerd = createRequire(join(root, "package.json"))("workerd").default;
  const all = [{ label: "floor", ...floor }, ...workers];
  const configs = all.map((w) => writeWorkerdConfig({ dir: join(out, "workerd", w.label), dist: w.dist, configPath: w.config }));
  // One start of each first, unmeasured: the OS's file cache then holds workerd and every bundle.
  for (const capnp of configs) await coldStart(workerd, capnp);
  log(`startup: ${all.map((w) => w.label).join(", ")}: a fresh workerd to the first 200 of GET /health, ${rounds} rounds in turns`);
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const round = {};
    for (let i = 0; i < all.length; i++) {
      const k = (i + r) % all.length; // rotate who goes first
      round[all[k].label] = await coldStart(workerd, configs[k]);
    }
    runs.push(round);
  }
  const floorMs = median(runs.map((x) => x.floor.ms));
  const summary = (label) => {
    const ms = median(runs.map((x) => x[label].ms));
    const cpu = runs.every((x) => x[label].cpuMs !== null) ? median(runs.map((x) => x[label].cpuMs)) : null;
    const row = { ms: round1(ms), cpuMs: round1(cpu) };
    if (label === "floor") return row;
    return {
      ...row,
      overFloorMs: round1(median(runs.map((x) => x[label].ms - x.floor.ms))),
      ratio: +median(runs.map((x) => x[label].ms / x.floor.ms)).toFixed(2),
      cpuOverFloorMs: cpu === null ? null : round1(median(runs.map((x) => x[label].cpuMs - x.floor.cpuMs))),
    };
  };
  const result = { rounds, floor: summary("floor"), runs };
  for (const w of workers) result[w.label] = { ...summary(w.label), bundle: bundleSizeOf(w.dist) };
  result.floor.bundle = bundleSizeOf(floor.dist);
  log(`startup medians: floor ${floorMs} ms, ${workers.map((w) => `${w.label} ${result[w.label].ms} ms`).join(", ")}`);
  return result;
}

export function startupLines(startup) {
  if (!startup) return [];
  const workers = Object.keys(startup).filter((k) => !["rounds", "floor", "runs"].includes(k));
  const cpu = startup.floor.cpuMs !== null;
  const lines = [
    `startup: a fresh workerd to the first 200 of GET /health, the built bundle against the floor Worker, medians of ${startup.rounds} rounds in turns:`,
    `${"worker".padEnd(12)}${"bundle gz".padStart(11)}${"first 200 ms".padStart(14)}${"over floor".padStart(12)}${"x floor".padStart(9)}${cpu ? `${"CPU ms".padStart(9)}${"CPU over floor".padStart(16)}` : ""}`,
  ];
  lines.push("-".repeat(lines[1].length));
  for (const label of ["floor", ...workers]) {
    const s = startup[label];
    lines.push(
      `${label.padEnd(12)}${`${s.bundle.gzipKiB} KiB`.padStart(11)}${String(s.ms).padStart(14)}${String(s.overFloorMs ?? "-").padStart(12)}${String(s.ratio ?? 1).padStart(9)}` +
        (cpu ? `${String(s.cpuMs).padStart(9)}${String(s.cpuOverFloorMs ?? "-").padStart(16)}` : ""),
    );
  }
  return [...lines, ""];
}

/**
 * The bundle's budget line and the startup line (a measurement, no budget) of one side of a run:
 * `side` is the key of its figures in `results.startup` (`current`, or `baseline` for the
 * before column).
 */
export function startupBudgets(results, side = "current") {
  const kib = results.bundle.gzipKiB;
  const lines = [{ budget: `bundle <= ${BUNDLE_BUDGET_KIB} KiB gzipped`, value: `${kib} KiB`, ok: kib <= BUNDLE_BUDGET_KIB }];
  const me = results.startup?.[side];
  if (me) {
    const floor = results.startup.floor;
    const cpu = me.cpuOverFloorMs === null ? "" : `; CPU +${me.cpuOverFloorMs} ms`;
    lines.push({ budget: "startup: a fresh workerd's first answer, over the floor Worker's", value: `+${me.overFloorMs} ms, ${me.ratio}x (${me.ms} vs ${floor.ms} ms)${cpu}`, ok: null });
  }
  return lines;
}

async function standalone() {
  const { baselineConfig, Target } = await import("./servers.mjs");
  const { ROOT } = await import("../lib/dev-vars.mjs");
  const { nodeBinary, wranglerEnv } = await import("../lib/wrangler.mjs");
  const out = join(ROOT, ".bench", "startup");
  const log = (line) => console.log(`\x1b[35m[bench startup]\x1b[0m ${line}`);
  const projectConfig = join(ROOT, "wrangler.toml");
  const checkout = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
  const targets = [new Target({ label: "current", port: 0, config: projectConfig, root: ROOT, state: join(out, "state") })];
  if (checkout) targets.push(new Target({ label: "baseline", port: 0, config: baselineConfig(checkout, join(out, "baseline")), root: checkout, state: join(out, "baseline", "state") }));
  const workers = targets.map((t) => {
    log(`building ${t.label} (wrangler deploy --dry-run)`);
    const dist = join(out, "dist", t.label);
    t.build(dist);
    return { label: t.label, dist, config: t.config };
  });
  log("building the floor Worker");
  const floor = buildFloor({ out: join(out, "floor"), projectConfig, node: nodeBinary(), wranglerJs: join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"), env: wranglerEnv() });
  const result = await measureStartup({ workers, floor, out, root: ROOT, log });
  writeFileSync(join(out, "results.json"), `${JSON.stringify(result, null, 2)}\n`);
  for (const line of startupLines(result)) console.log(line);
  console.log(`written to ${join(basename(ROOT), ".bench", "startup", "results.json")}`);
}

runIfMain(import.meta.url, standalone);

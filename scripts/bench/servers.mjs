// The Workers `npm run bench` drives, each a `wrangler dev` of its own (own port, own config,
// own local state under .bench/): the project itself, the hand-written reference Worker
// (scripts/bench/reference/) and, with BENCH_BASELINE, another checkout of the project.
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { findD1File, seedBenchmark } from "./seed.mjs";
import { d1Bindings } from "../lib/d1-shards.mjs";
import { ROOT, ensureDevVars } from "../lib/dev-vars.mjs";
import { nodeBinary, wranglerEnv } from "../lib/wrangler.mjs";

const run = promisify(execFile);

/** /proc/<pid>/stat counts CPU time in clock ticks: 100 a second on Linux (USER_HZ). */
const CLOCK_TICKS = 100;

/** A port free right now (the OS picks it), for a server that needs one of its own. */
export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The project's compatibility date, so the reference Worker runs on the same runtime semantics. */
export function compatibilityDate(configPath) {
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(configPath, "utf8"))?.[1];
  if (!date) throw new Error(`no compatibility_date in ${configPath}`);
  return date;
}

/**
 * A copy of a wrangler.toml, written to `outDir`, that runs the same Worker without wrangler
 * writing next to the original: wrangler keeps its scratch files (.wrangler/) in the config's
 * folder, which would put them into another checkout, or into scripts/ where the linter reads
 * them. `main`, the assets folder, `migrations_dir` and `[alias]` paths are made absolute, so
 * they still point at the original's. Options: `dropBuild` drops the `[build]` step, `suffix`
 * renames the Worker (wrangler's dev registry keys Workers by name).
 */
export function runnableConfig(path, outDir, { dropBuild = false, suffix = "" } = {}) {
  const source = resolve(path);
  if (!existsSync(source)) throw new Error(`no ${source}`);
  const from = dirname(source);
  const out = [];
  let section = "";
  let dropping = false;
  for (const line of readFileSync(source, "utf8").split("\n")) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      section = header[1];
      dropping = dropBuild && (section === "build" || section.startsWith("build."));
    }
    if (dropping) continue;
    const entry = /^(\s*)([A-Za-z_]+)(\s*=\s*)"([^"]*)"(.*)$/.exec(line);
    const key = entry?.[2];
    const isPath =
      (section === "" && key === "main") || (section === "assets" && key === "directory") || (section === "d1_databases" && key === "migrations_dir");
    // `[alias]` values that are paths (wrangler resolves them from the config's folder).
    const alias = section === "alias" ? /^(\s*"[^"]+"\s*=\s*)"(\.{1,2}\/[^"]*)"(.*)$/.exec(line) : null;
    if (alias) {
      out.push(`${alias[1]}${JSON.stringify(resolve(from, alias[2]))}${alias[3]}`);
    } else if (entry && isPath) {
      const value = isAbsolute(entry[4]) ? entry[4] : resolve(from, entry[4]);
      out.push(`${entry[1]}${key}${entry[3]}${JSON.stringify(value)}${entry[5]}`);
    } else if (entry && section === "" && key === "name" && suffix) {
      out.push(`${entry[1]}name${entry[3]}${JSON.stringify(`${entry[4]}${suffix}`)}${entry[5]}`);
    } else {
      out.push(line);
    }
  }
  mkdirSync(outDir, { recursive: true });
  const config = join(outDir, "wrangler.toml");
  writeFileSync(config, `# Written by scripts/bench.mjs from ${source}; do not edit.\n${out.join("\n")}`);
  return config;
}

/**
 * The config that runs a baseline checkout's Worker from `outDir`. Its `[build]` step is
 * dropped: it only copies the API reference page's script into the checkout's public/, which
 * no scenario requests, and the bench writes nothing into the checkout.
 */
export function baselineConfig(checkout, outDir) {
  if (!existsSync(join(checkout, "wrangler.toml"))) throw new Error(`BENCH_BASELINE=${checkout}: no wrangler.toml there`);
  return runnableConfig(join(checkout, "wrangler.toml"), outDir, { dropBuild: true, suffix: "-baseline" });
}

/**
 * One Worker under `wrangler dev`.
 * - `config`: its wrangler.toml; wrangler runs in that file's folder.
 * - `root`: the checkout whose wrangler (node_modules) runs it.
 * - `state`: its local D1 and Durable Object storage (--persist-to), wiped by `migrate`.
 * - `envFile`: where its secrets come from (the checkout's .dev.vars), when the config's own
 *   folder has none.
 * - `ready`: the path answered once it is up (any status below 500).
 */
export class Target {
  constructor({ label, port, config, root, state, envFile, vars = {}, ready = "/health", devArgs = [] }) {
    Object.assign(this, { label, port, config, root, state, envFile, vars, readyPath: ready, devArgs });
    this.base = `http://127.0.0.1:${port}`;
    this.output = "";
    this.child = null;
    const own = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
    this.wranglerJs = existsSync(own) ? own : join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    const ownNode = join(root, "node_modules", ".bin", "node");
    this.node = existsSync(ownNode) ? ownNode : nodeBinary();
  }

  env() {
    const env = wranglerEnv({ CI: "true" });
    env.PATH = `${join(this.root, "node_modules", ".bin")}${delimiter}${env.PATH}`;
    return env;
  }

  common() {
    const args = ["-c", this.config];
    if (this.envFile && existsSync(this.envFile)) args.push("--env-file", this.envFile);
    return args;
  }

  /**
   * A fresh local D1 (the binding DB: the directory, where the benchmark's agencies live) with
   * the checkout's migrations applied; resolves to its SQLite file.
   */
  async migrate() {
    rmSync(this.state, { recursive: true, force: true });
    mkdirSync(this.state, { recursive: true });
    await this.apply("DB");
    return findD1File(this.state);
  }

  /** Like migrate(), then every other D1 binding of the config too (each shard). */
  async migrateAll() {
    const file = await this.migrate();
    for (const binding of d1Bindings(this.config).filter((b) => b !== "DB")) await this.apply(binding);
    return file;
  }

  async apply(binding) {
    try {
      await run(this.node, [this.wranglerJs, "d1", "migrations", "apply", binding, "--local", "--persist-to", this.state, "-c", this.config], {
        cwd: dirname(this.config),
        env: this.env(),
      });
    } catch (error) {
      throw new Error(`${this.label}: applying the migrations to ${binding} failed\n${error.stdout ?? ""}${error.stderr ?? ""}`, { cause: error });
    }
  }

  async start() {
    const vars = Object.entries(this.vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
    // Each wrangler would take the default inspector port (9229) when it looks free, and the
    // ones started together would all see it free: give each its own.
    const inspector = ["--inspector-port", String(await freePort())];
    this.child = spawn(
      this.node,
      [
        this.wranglerJs, "dev", ...this.common(), "--port", String(this.port), "--ip", "127.0.0.1", ...inspector,
        "--persist-to", this.state, ...vars, ...this.devArgs,
      ],
      { cwd: dirname(this.config), env: this.env(), stdio: "pipe" },
    );
    // Only our own wrangler saying it listens on our port counts as up: a server someone else
    // left on the port would answer the probe too.
    this.listening = false;
    const ready = `Ready on http://127.0.0.1:${this.port}`;
    const collect = (d) => {
      const text = this.output + d;
      if (!this.listening && text.includes(ready)) this.listening = true;
      this.output = text.slice(-20_000);
    };
    this.child.stdout.on("data", collect);
    this.child.stderr.on("data", collect);
  }

  async waitReady(timeoutMs = 180_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null) throw new Error(`${this.label}: wrangler dev exited (${this.child?.exitCode})\n${this.output.slice(-4000)}`);
      try {
        if (this.listening && (await fetch(`${this.base}${this.readyPath}`)).status < 500) return;
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`${this.label}: wrangler dev did not answer ${this.readyPath} within ${timeoutMs / 1000} s\n${this.output.slice(-4000)}`);
  }

  /**
   * CPU seconds used so far by this server's processes (wrangler and its workerd processes,
   * read from /proc), or null where there is no /proc. Their difference over a run, per
   * request, is what a request costs the server whatever else the machine is doing, where
   * requests per second also measure how much of the machine was left to it.
   */
  cpuSeconds() {
    if (!this.child?.pid || !existsSync("/proc/self/stat")) return null;
    const stats = new Map();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // The command may hold spaces and parentheses: the fields start after the last ")".
        const text = readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
        stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // gone meanwhile
      }
    }
    const tree = new Set([this.child.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, { ppid }] of stats) {
        if (!tree.has(pid) && tree.has(ppid)) {
          tree.add(pid);
          grew = true;
        }
      }
    }
    let ticks = 0;
    for (const pid of tree) ticks += stats.get(pid)?.ticks ?? 0;
    return ticks / CLOCK_TICKS;
  }

  /** Stops the wrangler this target started (and, through it, its workerd). */
  stop() {
    if (this.child && this.child.exitCode === null && !this.child.killed) this.child.kill("SIGTERM");
  }

  /** `wrangler deploy --dry-run` of the Worker into `outDir`. */
  build(outDir) {
    rmSync(outDir, { recursive: true, force: true });
    execFileSync(this.node, [this.wranglerJs, "deploy", "--dry-run", "--outdir", outDir, "-c", this.config], {
      cwd: dirname(this.config),
      env: this.env(),
      stdio: "pipe",
    });
  }
}

/**
 * Runs a scenario's body with its Workers started by it, printing each one's recent wrangler
 * output when it fails, and stops them after, however it ends (an exit in between too).
 */
export async function withTargets(targets, body) {
  process.on("exit", () => targets.forEach((t) => t.stop()));
  try {
    return await body();
  } catch (error) {
    for (const t of targets) console.error(`--- ${t.label} (wrangler dev) output ---\n${t.output.slice(-3000)}`);
    throw error;
  } finally {
    targets.forEach((t) => t.stop());
  }
}

/**
 * The Workers of a scenario run alone (`node scripts/bench/<name>.mjs`): this checkout's
 * (`current`) on BENCH_PORT + `portOffset` and, with BENCH_BASELINE, that checkout's (`baseline`)
 * on the next port, each with its config and state under `.bench/<name>/`. Not started.
 */
export function scenarioTargets(name, { portOffset, vars }) {
  const port = Number(process.env.BENCH_PORT || 8799) + portOffset;
  const out = join(ROOT, ".bench", name);
  const current = new Target({
    label: "current",
    port,
    config: runnableConfig(join(ROOT, "wrangler.toml"), out, { dropBuild: true, suffix: `-${name}` }),
    root: ROOT,
    state: join(out, "state"),
    envFile: join(ROOT, ".dev.vars"),
    vars,
  });
  const checkout = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
  const baseline = checkout
    ? new Target({
        label: "baseline",
        port: port + 1,
        config: baselineConfig(checkout, join(out, "baseline")),
        root: checkout,
        state: join(out, "baseline", "state"),
        envFile: join(checkout, ".dev.vars"),
        vars,
      })
    : null;
  return { port, out, current, baseline, targets: [current, baseline].filter(Boolean) };
}

/**
 * A fresh local D1 for the target (migrated) holding one agency of `size` contacts, its key
 * hashed with the target's checkout's TOKEN_PEPPER (its .dev.vars gets one if it has none: the
 * Worker serves nothing without it). Resolves to the agency and the database file.
 */
export async function seedOneAgency(target, size = 1_000) {
  const file = await target.migrate();
  const [agency] = seedBenchmark(file, { pepper: ensureDevVars(join(target.root, ".dev.vars")).vars.TOKEN_PEPPER, sizes: [size] });
  return { agency, file };
}

/** Runs a scenario alone (`node scripts/bench/<scenario>.mjs`) when its module is the script node started. */
export function runIfMain(moduleUrl, main) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

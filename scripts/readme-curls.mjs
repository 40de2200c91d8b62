#!/usr/bin/env node
// `npm run test:readme`: runs the README's "First calls" against a fresh `npm run dev`, so the
// curls partners copy keep working.
//   1. copies this checkout (the files git tracks or would track, as they are on disk) into a
//      temporary folder, with node_modules linked: `npm run dev` there has its own .dev.vars
//      and .wrangler/state, so it starts from nothing and never touches this checkout's data
//   2. starts `npm run dev` there on a free port (PORT), waits for its banner and reads the
//      Demo Agency's access token from it (the banner's token whose GET /settings names the
//      Demo Agency)
//   3. runs every ```sh block of the section, in order, in one bash (`set -euo pipefail`), with
//      the `BASE=` and `TOKEN=` lines set to that port and token; `curl` is wrapped so an answer
//      that is not 2xx fails the run. Each command is printed with a short result line
//   4. stops the server and its children (its process group) and removes the copy
// `--verbose` prints each command's whole output and, at the end, the server's log.
// Needs bash, curl and jq.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./lib/dev-vars.mjs";
import { DEMO_AGENCY } from "./lib/seed.mjs";

const SECTION = "First calls";
const HOST = "127.0.0.1";
/** Migrations, the first build and the seed on a busy 2-core machine take a while. */
const BANNER_TIMEOUT_MS = 300_000;
/** After the first token shows up, how long to wait for the rest of the banner. */
const BANNER_SETTLE_MS = 3_000;
const STOP_TIMEOUT_MS = 15_000;
const VERBOSE = process.argv.includes("--verbose");

const say = (line) => console.log(`\x1b[36m[readme]\x1b[0m ${line}`);
const warn = (line) => console.error(`\x1b[31m[readme]\x1b[0m ${line}`);
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");
const stripAnsi = (text) => text.replace(ANSI, "");

class Failure extends Error {}

// ---------------------------------------------------------------------------------------
// The README section

/** The ```sh blocks of the section, in order. */
function sectionBlocks(markdown, heading = SECTION) {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start === -1) throw new Failure(`README.md has no "## ${heading}" section`);
  const blocks = [];
  let block = null;
  for (const line of lines.slice(start + 1)) {
    if (block === null && /^##\s/.test(line)) break;
    if (block === null && /^```(sh|bash|shell)\s*$/.test(line)) block = [];
    else if (block !== null && /^```\s*$/.test(line)) {
      blocks.push(block.join("\n"));
      block = null;
    } else if (block !== null) block.push(line);
  }
  if (block !== null) throw new Failure(`an unclosed code block in "## ${heading}"`);
  if (blocks.length === 0) throw new Failure(`"## ${heading}" has no \`\`\`sh blocks`);
  return blocks;
}

/** True when bash can parse `text` as complete commands (no open quote, pipe or `\`). */
function isComplete(text) {
  if (/\\\s*$/.test(text)) return false;
  return spawnSync("bash", ["-n"], { input: `${text}\n`, stdio: ["pipe", "ignore", "ignore"] }).status === 0;
}

/** A block's commands, each as written (continuation lines included); comments and blank lines dropped. */
function commandsOf(block) {
  const commands = [];
  let pending = [];
  for (const line of block.split("\n")) {
    if (pending.length === 0 && (line.trim() === "" || line.trim().startsWith("#"))) continue;
    pending.push(line);
    if (isComplete(pending.join("\n"))) {
      commands.push(pending.join("\n"));
      pending = [];
    }
  }
  if (pending.length > 0) throw new Failure(`a command bash cannot parse:\n${pending.join("\n")}`);
  return commands;
}

/** The commands with `BASE=` and `TOKEN=` set to this server's; both must be there exactly once. */
function withServer(commands, { base, token }) {
  const values = { BASE: base, TOKEN: token };
  const replaced = Object.fromEntries(Object.keys(values).map((name) => [name, 0]));
  const out = commands.map((command) => {
    const name = Object.keys(values).find((n) => new RegExp(`^${n}=`).test(command));
    if (!name) return command;
    replaced[name] += 1;
    return `${name}='${values[name]}'`;
  });
  for (const [name, count] of Object.entries(replaced)) {
    if (count !== 1) throw new Failure(`"## ${SECTION}" must set ${name}= once, on a line of its own (found ${count})`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The bash script

const shellQuote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Prints, runs and reports each command (scripts/lib/readme-curls.sh); `curl` fails on an answer that is not 2xx. */
function bashScript(commands) {
  const steps = commands.map((command) => {
    const assigned = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(command)?.[1] ?? "";
    return `__begin ${shellQuote(command)}\n{\n${command}\n} >"$__out"\n__end ${shellQuote(assigned)}\n`;
  });
  return `set -euo pipefail\nsource ${shellQuote(join(ROOT, "scripts", "lib", "readme-curls.sh"))}\n\n${steps.join("\n")}`;
}

// ---------------------------------------------------------------------------------------
// The server

/** A port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** This checkout's files (tracked, or untracked and not ignored) as they are on disk, copied to `dir`. */
function copyCheckout(dir) {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  if (listed.status !== 0) throw new Failure(`git ls-files failed: ${listed.stderr || listed.error?.message}`);
  let copied = 0;
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    const from = join(ROOT, file);
    // Deleted but not yet committed; or a folder (a submodule).
    if (!existsSync(from) || lstatSync(from).isDirectory()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(from, join(dir, file), { verbatimSymlinks: true });
    copied += 1;
  }
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"), "dir");
  return copied;
}

/** `npm run dev` in `dir` on `port`, in a process group of its own (so it can be stopped whole). */
function startDev(dir, port) {
  const child = spawn("npm", ["run", "dev"], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const log = [];
  const listeners = new Set();
  const onData = (chunk) => {
    const text = stripAnsi(chunk.toString("utf8"));
    log.push(text);
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  child.once("error", (error) => log.push(`could not start npm: ${error.message}\n`));
  return { child, log, listeners, exited };
}

const TOKEN_PATTERN = /(?<![A-Za-z0-9_])pa_[A-Za-z0-9_-]{20,}/g;

/** Resolves with the banner's access tokens (in order) once the banner is out. */
function waitForBanner(dev) {
  return new Promise((resolve, reject) => {
    let settle = null;
    const done = (fn) => {
      clearTimeout(deadline);
      clearTimeout(settle);
      dev.listeners.delete(check);
      fn();
    };
    const tokens = () => [...new Set(dev.log.join("").match(TOKEN_PATTERN) ?? [])];
    const check = () => {
      const text = dev.log.join("");
      if (/seeding failed/i.test(text)) return done(() => reject(new Failure("npm run dev could not seed the demo data")));
      if (tokens().length === 0) return;
      // The banner is one write: its last line, or a moment after its first token.
      if (/Ctrl\+C/.test(text.slice(text.search(TOKEN_PATTERN)))) return done(() => resolve(tokens()));
      settle ??= setTimeout(() => done(() => resolve(tokens())), BANNER_SETTLE_MS);
    };
    const deadline = setTimeout(
      () => done(() => reject(new Failure(`no banner from npm run dev within ${BANNER_TIMEOUT_MS / 1000}s`))),
      BANNER_TIMEOUT_MS,
    );
    dev.listeners.add(check);
    dev.exited.then(({ code, signal }) => done(() => reject(new Failure(`npm run dev exited (${signal ?? `code ${code}`}) before its banner`))));
    check();
  });
}

/** The token of the Demo Agency among the banner's (the EU agency's key is printed too). */
async function demoToken(base, tokens) {
  for (const token of tokens) {
    const res = await fetch(`${base}/settings`, { headers: { Authorization: `Bearer ${token}` } });
    const body = await res.json().catch(() => null);
    if (res.ok && body?.settings?.agency_name === DEMO_AGENCY.name) return token;
  }
  throw new Failure(`none of the banner's ${tokens.length} access tokens belongs to "${DEMO_AGENCY.name}"`);
}

const groupAlive = (pid) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM to the server's process group (npm, dev.mjs, wrangler, workerd), then SIGKILL if it lingers. */
async function stopDev(dev) {
  const { pid } = dev.child;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (groupAlive(pid)) {
    warn(`the server's processes did not stop within ${STOP_TIMEOUT_MS / 1000}s: SIGKILL`);
    process.kill(-pid, "SIGKILL");
  }
}

// ---------------------------------------------------------------------------------------

function runBash(script, { cwd, origin }) {
  return new Promise((resolve) => {
    const env = { ...process.env, README_ORIGIN: origin, README_VERBOSE: VERBOSE ? "1" : "0" };
    const bash = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
    bash.once("error", (error) => {
      warn(`could not start bash: ${error.message}`);
      resolve(1);
    });
    bash.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function requireTools() {
  const missing = ["bash", "curl", "jq"].filter((tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0);
  if (missing.length > 0) throw new Failure(`${missing.join(", ")} must be installed (the README's calls use them)`);
}

async function main() {
  requireTools();
  const blocks = sectionBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  const commands = blocks.flatMap(commandsOf);
  say(`README.md "## ${SECTION}": ${blocks.length} blocks, ${commands.length} commands`);

  const dir = mkdtempSync(join(tmpdir(), "readme-curls-"));
  let dev = null;
  const cleanUp = async () => {
    if (dev) await stopDev(dev);
    rmSync(dir, { recursive: true, force: true });
  };
  let stopping = false;
  const onSignal = (signal) => {
    // A second Ctrl+C must not kill this process before its server: the server runs in a
    // process group of its own, which the terminal's signal does not reach.
    if (stopping) return;
    stopping = true;
    warn(`${signal}: stopping the server`);
    cleanUp().finally(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Whatever ends this process (a crash included), its server's group goes with it.
  process.on("exit", () => {
    if (!dev?.child.pid) return;
    try {
      process.kill(-dev.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  });

  let ok = false;
  try {
    say(`copied ${copyCheckout(dir)} files of this checkout to ${dir}`);
    const port = await freePort();
    const origin = `http://${HOST}:${port}`;
    say(`starting npm run dev there on port ${port} (its own .dev.vars and .wrangler/state)`);
    const started = Date.now();
    dev = startDev(dir, port);
    const tokens = await waitForBanner(dev);
    const base = `${origin}/api/v2`;
    const token = await demoToken(base, tokens);
    say(`banner after ${((Date.now() - started) / 1000).toFixed(0)}s; ${DEMO_AGENCY.name}'s access token ${token.slice(0, 12)}...`);

    const script = bashScript(withServer(commands, { base, token }));
    const code = await runBash(script, { cwd: dir, origin });
    ok = code === 0;
    if (ok) say(`all ${commands.length} commands passed`);
    else warn(`a command failed (bash exit ${code}); the server's log ends:\n${dev.log.join("").split("\n").slice(-40).join("\n")}`);
    if (VERBOSE) console.log(`\n--- npm run dev ---\n${dev.log.join("")}`);
  } catch (error) {
    warn(error instanceof Failure ? error.message : (error.stack ?? String(error)));
    if (dev) warn(`the server's log ends:\n${dev.log.join("").split("\n").slice(-60).join("\n")}`);
  } finally {
    await cleanUp();
    say("server stopped");
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    warn(error instanceof Failure ? error.message : (error.stack ?? String(error)));
    process.exit(1);
  },
);

#!/usr/bin/env node
// `npm run dev`: one command from a fresh clone to a running, seeded local API.
//   1. `.dev.vars` with a random ADMIN_TOKEN and TOKEN_PEPPER and fast simulated calls (values present are kept)
//   2. D1 migrations applied to every local database (each shard of wrangler.toml)
//   3. `wrangler dev` started and waited on until it answers
//   4. a demo agency, team, custom fields, contacts and a `*` key seeded (idempotently)
//   5. a banner with the URLs, the demo key's fresh secrets, a dashboard sign-in link for the
//      demo owner, a curl to try and the command that runs the SDK's quick start
//   6. the every-minute Cron Trigger fired by hand (wrangler dev does not run crons)
// wrangler's output goes to .wrangler/dev.log until the banner (our `[dev]` lines and errors
// stay on the console), then to the console as well. SIGINT/SIGTERM go to wrangler; we exit
// with its exit code. PORT overrides 8787.
import { existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { constants } from "node:os";
import { dirname, join, relative } from "node:path";
import { DEV_VARS_PATH, ensureDevVars, ROOT } from "./lib/dev-vars.mjs";
import { seed } from "./lib/seed.mjs";
import { DEMO_OWNER_EMAIL } from "./lib/seed-dashboard.mjs";
import { spawnWrangler } from "./lib/wrangler.mjs";
import { migrateAll } from "./lib/d1-shards.mjs";

const HOST = "127.0.0.1";
const DEFAULT_PORT = 8787;
const PORT = Number(process.env.PORT || DEFAULT_PORT);
const BASE_URL = `http://${HOST}:${PORT}`;
const READY_TIMEOUT_MS = 180_000;
// The operator CLI talks to 8787 unless ADMIN_URL names another server (scripts/admin.mjs), so
// on another port the banner's commands carry it and work as printed.
const ADMIN_CLI = `${PORT === DEFAULT_PORT ? "" : `ADMIN_URL=${BASE_URL} `}npm run admin --`;
// Likewise the SDK's quick start (sdk/README.md) reads PARTNER_API_URL, default 8787's.
const SDK_URL_VAR = PORT === DEFAULT_PORT ? "" : `PARTNER_API_URL=${BASE_URL}/api/v2 `;

// wrangler prints each migration's table twice and a page of startup chatter, and the Worker
// logs every seeding request: about 2,000 lines that would bury our progress and the banner.
// All of it goes to this file (new on each run), which the banner and every failure name.
// One log per port: servers on two ports never write into one file.
const LOG_PATH = join(ROOT, ".wrangler", PORT === DEFAULT_PORT ? "dev.log" : `dev-${PORT}.log`);
const LOG_NAME = relative(process.cwd(), LOG_PATH) || LOG_PATH;
let logFd = null;
const toLog = (text) => logFd !== null && writeSync(logFd, text);
/** Once the banner is out, wrangler's output (the Worker's request log) shows on the console too. */
let streaming = false;

const say = (line) => {
  console.log(`\x1b[36m[dev]\x1b[0m ${line}`);
  toLog(`[dev] ${line}\n`);
};
const warn = (line) => {
  console.error(`\x1b[33m[dev]\x1b[0m ${line}`);
  toLog(`[dev] ${line}\n`);
};

/** When wrangler failed: what failed, the end of its output, and where the rest is. */
function showLogTail(what, lines = 40) {
  let text = "";
  try {
    text = readFileSync(LOG_PATH, "utf8");
  } catch {
    // nothing written yet
  }
  warn(`${what}; the end of its output (all of it: ${LOG_NAME}):`);
  console.error(text.trimEnd().split("\n").slice(-lines).join("\n"));
}

let child = null;
let stopping = false;

function forward(signal) {
  stopping = true;
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill(signal);
    // wrangler normally stops workerd and exits within a second; do not hang forever.
    setTimeout(() => child?.exitCode === null && child.kill("SIGKILL"), 10_000).unref();
  } else {
    process.exit(128 + (constants.signals[signal] ?? 1));
  }
}
process.on("SIGINT", () => forward("SIGINT"));
process.on("SIGTERM", () => forward("SIGTERM"));
process.on("SIGHUP", () => forward("SIGHUP"));

// `npm run` forwards SIGTERM only to the `sh -c` it started, which dies without passing it
// on; when our parent goes away we stop wrangler ourselves rather than leave workerd running.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid && !stopping) forward("SIGTERM");
}, 1_000).unref();

const exitCodeOf = (code, signal) => code ?? (signal ? 128 + (constants.signals[signal] ?? 1) : 0);

function portIsFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

async function waitUntilReady(proc) {
  const exited = new Promise((resolve) => proc.once("exit", () => resolve("exited")));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${BASE_URL}/api/v2/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status === 200) return true;
    } catch {
      // not listening yet
    }
    if ((await Promise.race([exited, new Promise((r) => setTimeout(r, 500, "waiting"))])) === "exited") return false;
  }
  throw new Error(`wrangler dev did not answer on ${BASE_URL} within ${READY_TIMEOUT_MS / 1000}s`);
}

function banner({ agency, key, dashboard, notes, others }, adminTokenPath) {
  const line = "─".repeat(78);
  const b = (s) => `\x1b[1m${s}\x1b[0m`;
  const lines = [
    "",
    line,
    b(" Partner API is running locally"),
    "",
    `   API base        ${BASE_URL}/api/v2`,
    `   Docs (Scalar)   ${BASE_URL}/api/v2/docs`,
    `   OpenAPI         ${BASE_URL}/api/v2/openapi.json`,
    `   MCP server      ${BASE_URL}/mcp   (streamable HTTP; an API key's token, or give an MCP host the URL: it connects with OAuth)`,
    `   OAuth           ${BASE_URL}/.well-known/oauth-authorization-server   (apps and agents; consent in the dashboard)`,
    `   Operator API    ${BASE_URL}/admin/v1   (ADMIN_TOKEN is in ${adminTokenPath}; try \`${ADMIN_CLI} help\`)`,
    "",
    b(` ${agency.name}`) + `   agency_uuid ${agency.agency_uuid}   shard ${agency.shard} (${agency.region})`,
    `   "${key.name}" (scopes: ${key.scopes.join(", ")}; expires ${key.expires_at ?? "never"}; key_uuid ${key.key_uuid})`,
    `   access token    ${key.accessToken}`,
    `   rotate key      ${key.rotateKey}`,
    "   (fresh secrets on every `npm run dev`: the previous ones no longer work)",
    "",
    ...others.flatMap(({ agency: other, key: otherKey }) => [
      b(` ${other.name}`) + `   agency_uuid ${other.agency_uuid}   shard ${other.shard} (${other.region})`,
      `   "${otherKey.name}" access token   ${otherKey.accessToken}`,
      "",
    ]),
    ...(dashboard
      ? [
          b(" Agency dashboard") + "   (API keys, webhooks, connected apps, audit log)",
          `   sign in as ${DEMO_OWNER_EMAIL}: ${dashboard.url}`,
          `   (works once, until ${dashboard.expiresAt}; another: ${ADMIN_CLI} dashboard-link --member ${dashboard.memberUuid})`,
          "",
        ]
      : []),
    b(" Try it"),
    `   curl -s -H "Authorization: Bearer ${key.accessToken}" "${BASE_URL}/api/v2/contacts"`,
    "   the SDK's quick start (sdk/README.md), in its folder:",
    `   ${SDK_URL_VAR}PARTNER_API_TOKEN=${key.accessToken} PARTNER_API_ROTATE_KEY=${key.rotateKey} node quickstart.mjs`,
    ...notes.flatMap((n) => ["", `   note: ${n}`]),
    "",
    ` wrangler's output is in ${LOG_NAME}; the Worker's request log follows here (LOG_LEVEL=warn in ${adminTokenPath} quiets it).`,
    " Ctrl+C stops the server.",
    line,
    "",
  ];
  console.log(lines.join("\n"));
}

async function main() {
  const hadDevVars = existsSync(DEV_VARS_PATH);
  const { vars, added } = ensureDevVars();
  const adminToken = vars.ADMIN_TOKEN;
  const adminTokenPath = relative(process.cwd(), DEV_VARS_PATH) || DEV_VARS_PATH;
  // The Worker refuses every request without a pepper (docs/decisions/security-posture.md).
  if (!vars.TOKEN_PEPPER?.trim()) {
    warn(`TOKEN_PEPPER in ${adminTokenPath} is empty, and the Worker serves nothing without one: delete that line and run \`npm run dev\` again (it writes a random one).`);
    return 1;
  }
  // Before the log is opened: a second `npm run dev` must not truncate the running one's log.
  if (!(await portIsFree(PORT))) {
    warn(`port ${PORT} on ${HOST} is in use (another \`npm run dev\`?). Stop it, or run with PORT=<port>.`);
    return 1;
  }
  mkdirSync(dirname(LOG_PATH), { recursive: true });
  logFd = openSync(LOG_PATH, "w");
  say(added.length > 0 ? `added ${added.join(", ")} to ${adminTokenPath}` : `using ADMIN_TOKEN from ${adminTokenPath}`);
  if (hadDevVars && added.includes("TOKEN_PEPPER")) {
    say("token hashes are now keyed with the new TOKEN_PEPPER: keys you made by hand before no longer authenticate (the demo keys get fresh secrets below)");
  }

  // Every shard of wrangler.toml. Non-interactive, wrangler answers its "continue?" prompt itself
  // (CI=true forces that even on a TTY).
  const migrated = await migrateAll(
    (args) =>
      new Promise((resolve) => {
        toLog(`$ wrangler ${args.join(" ")}\n`);
        child = spawnWrangler(args, { env: { CI: "true" }, stdio: ["ignore", logFd, logFd] });
        child.once("exit", (code, signal) => resolve(exitCodeOf(code, signal)));
      }).finally(() => (child = null)),
    { log: say },
  );
  if (stopping) return migrated || 130;
  if (migrated !== 0) {
    showLogTail(`wrangler d1 migrations apply failed (exit ${migrated})`);
    return migrated;
  }

  say(`starting wrangler dev on ${BASE_URL} (its output: ${LOG_NAME})`);
  const devArgs = ["dev", "--ip", HOST, "--port", String(PORT), "--show-interactive-dev-session=false"];
  toLog(`$ wrangler ${devArgs.join(" ")}\n`);
  child = spawnWrangler(devArgs, { stdio: ["ignore", "pipe", "pipe"] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    from.on("data", (chunk) => {
      toLog(chunk);
      if (streaming) to.write(chunk);
    });
  }
  const exitCode = new Promise((resolve) => child.once("exit", (code, signal) => resolve(exitCodeOf(code, signal))));
  // Its last lines may still be in the pipes when it exits.
  const drained = Promise.all([child.stdout, child.stderr].map((stream) => new Promise((resolve) => stream.once("close", resolve))));
  child.once("error", (error) => warn(`could not start wrangler: ${error.message}`));

  if (!(await waitUntilReady(child))) {
    if (!stopping) {
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      showLogTail("wrangler dev exited before it was ready");
    }
    return exitCode;
  }
  if (stopping) return exitCode;

  // wrangler dev does not fire Cron Triggers by itself; the Voice AI sweep (scheduled calls,
  // stuck calls) needs one a minute, so we fire it through wrangler's scheduled-handler URL.
  setInterval(() => {
    fetch(`${BASE_URL}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent("* * * * *")}`)
      .then((res) => res.arrayBuffer())
      .catch(() => {});
  }, 60_000).unref();

  say("seeding demo data");
  try {
    const seeded = await seed({ baseUrl: BASE_URL, adminToken, log: (l) => say(`  ${l}`) });
    banner(seeded, adminTokenPath);
  } catch (error) {
    warn(`seeding failed: ${error.message}`);
    warn(`the server is still running at ${BASE_URL}/api/v2 (docs: ${BASE_URL}/api/v2/docs); its log so far: ${LOG_NAME}`);
  }
  streaming = true;
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (logFd !== null) showLogTail("npm run dev failed");
    warn(error.stack ?? String(error));
    if (child && child.exitCode === null) child.kill("SIGTERM");
    process.exit(1);
  },
);

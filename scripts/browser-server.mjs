#!/usr/bin/env node
// The server of the browser tests (playwright.config.ts starts it as its `webServer`):
// `wrangler dev` on a fixed loopback port with its own local state, migrated from scratch on
// every run, so the tests never see (or change) the data of `npm run dev`.
//   BROWSER_TEST_PORT          the port (test/browser/server.ts sets it; dev uses 8787, the benchmark 8799)
//   BROWSER_TEST_ADMIN_TOKEN   the operator token the tests use
// Its variables come from its own env file: given --env-file, wrangler does not read .dev.vars,
// so a developer's local settings cannot change what the tests see.
// wrangler's [build] command copies the Scalar bundle into public/ before it serves.
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/dev-vars.mjs";
import { spawnWrangler } from "./lib/wrangler.mjs";
import { migrateAll } from "./lib/d1-shards.mjs";

const { BROWSER_TEST_PORT: PORT, BROWSER_TEST_ADMIN_TOKEN: ADMIN_TOKEN } = process.env;
if (!PORT || !ADMIN_TOKEN) {
  console.error("[browser-server] BROWSER_TEST_PORT and BROWSER_TEST_ADMIN_TOKEN must be set (run it through `npm run test:browser`)");
  process.exit(2);
}
// Under .wrangler/, which git ignores.
const STATE = join(ROOT, ".wrangler", "browser-test-state");

let child = null;
const stop = (signal) => {
  if (child && child.exitCode === null) child.kill(signal);
  else process.exit(128 + (constants.signals[signal] ?? 1));
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal));

const run = (args, options) =>
  new Promise((resolve) => {
    child = spawnWrangler(args, options);
    child.once("error", (error) => {
      console.error(`[browser-server] could not start wrangler: ${error.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 1)));
  });

rmSync(STATE, { recursive: true, force: true });
const migrated = await migrateAll((args) => run(args, { env: { CI: "true" } }), { extra: ["--persist-to", STATE] });
if (migrated !== 0) {
  console.error(`[browser-server] wrangler d1 migrations apply failed (exit ${migrated})`);
  process.exit(migrated);
}

// A pepper of its own: without one the Worker serves nothing (docs/decisions/security-posture.md).
const vars = { ADMIN_TOKEN, TOKEN_PEPPER: randomBytes(32).toString("base64url"), LOG_LEVEL: "warn", VOICE_PROVIDER: "simulated" };
const envFile = join(STATE, "test.env");
mkdirSync(STATE, { recursive: true });
writeFileSync(envFile, Object.entries(vars).map(([name, value]) => `${name}=${value}\n`).join(""));
process.exit(
  await run([
    "dev",
    "--ip", "127.0.0.1",
    "--port", PORT,
    "--persist-to", STATE,
    "--env-file", envFile,
    "--show-interactive-dev-session=false",
  ]),
);

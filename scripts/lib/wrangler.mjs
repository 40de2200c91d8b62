// Runs the project's own wrangler on the project's own Node (the pinned `node` devDependency,
// >= 22.12 as wrangler requires), so `node scripts/dev.mjs` works even on a Node 20 machine.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ROOT } from "./dev-vars.mjs";

const BIN = join(ROOT, "node_modules", ".bin");
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** The pinned Node when installed, else the one running us. */
export const nodeBinary = () => {
  const pinned = join(BIN, process.platform === "win32" ? "node.exe" : "node");
  return existsSync(pinned) ? pinned : process.execPath;
};

/** Environment for wrangler: the pinned Node first on PATH, no `Request.cf` fetch, no telemetry. */
export function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`,
    // Offline, wrangler warns that it cannot fetch `Request.cf`; local dev does not need it.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    ...extra,
  };
}

export function spawnWrangler(args, { env = {}, stdio = "inherit" } = {}) {
  if (!existsSync(WRANGLER)) {
    throw new Error(`wrangler is not installed (${WRANGLER} is missing); run \`npm install\` first`);
  }
  return spawn(nodeBinary(), [WRANGLER, ...args], { cwd: ROOT, env: wranglerEnv(env), stdio });
}

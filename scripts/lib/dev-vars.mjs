// `.dev.vars` is wrangler's local secrets file (dotenv syntax, git-ignored):
// https://developers.cloudflare.com/workers/configuration/secrets/#local-development-with-secrets
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DEV_VARS_PATH = fileURLToPath(new URL("../../.dev.vars", import.meta.url));

/** Parses dotenv lines (`KEY=value`, optional quotes, `#` comments). */
export function parseDevVars(text) {
  const vars = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2];
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2];
    else value = value.replace(/\s+#.*$/, "");
    vars[match[1]] = value;
  }
  return vars;
}

export function readDevVars(path = DEV_VARS_PATH) {
  return existsSync(path) ? parseDevVars(readFileSync(path, "utf8")) : {};
}

/**
 * What `npm run dev` needs in `.dev.vars`, each added when missing and never changed once there
 * (a developer's own values win):
 * - ADMIN_TOKEN: a random operator token;
 * - TOKEN_PEPPER: a random secret keying token hashes and sealing list cursors, without which the
 *   Worker serves nothing (docs/decisions/security-posture.md);
 * - SIMULATED_CALL_SPEED: simulated Voice AI calls last 20 times less, so a demo call ends in
 *   seconds rather than minutes (its record stays consistent; see src/integrations/simulators/voice.ts);
 * - ALLOW_LOOPBACK_WEBHOOKS: webhook endpoints on http://127.0.0.1:<port>, for
 *   `npm run webhooks:listen` (never in production: wrangler.toml keeps it off).
 */
const DEV_DEFAULTS = {
  ADMIN_TOKEN: () => randomBytes(32).toString("base64url"),
  TOKEN_PEPPER: () => randomBytes(32).toString("base64url"),
  SIMULATED_CALL_SPEED: () => "20",
  ALLOW_LOOPBACK_WEBHOOKS: () => "true",
};

/**
 * Creates `.dev.vars` when it is missing and appends every default it lacks. Returns the
 * file's values and the names it added.
 */
export function ensureDevVars(path = DEV_VARS_PATH) {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "# Local secrets and settings for wrangler dev (git-ignored).\n";
  const vars = parseDevVars(text);
  const added = Object.entries(DEV_DEFAULTS)
    .filter(([name]) => vars[name] === undefined)
    .map(([name, make]) => [name, make()]);
  if (added.length > 0 || !existsSync(path)) {
    const lines = added.map(([name, value]) => `${name}=${value}\n`).join("");
    writeFileSync(path, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${lines}`, { mode: 0o600 });
  }
  return { vars: { ...vars, ...Object.fromEntries(added) }, added: added.map(([name]) => name) };
}

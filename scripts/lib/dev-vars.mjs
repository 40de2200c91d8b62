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
 * Makes sure `.dev.vars` holds an ADMIN_TOKEN: creates the file with a random one when it
 * is missing, appends one when the file exists without it, and otherwise leaves it alone.
 */
export function ensureAdminToken(path = DEV_VARS_PATH) {
  const token = () => randomBytes(32).toString("base64url");
  if (!existsSync(path)) {
    const value = token();
    writeFileSync(path, `# Local secrets for wrangler dev (git-ignored).\nADMIN_TOKEN=${value}\n`, { mode: 0o600 });
    return { token: value, created: true };
  }
  const text = readFileSync(path, "utf8");
  const existing = parseDevVars(text).ADMIN_TOKEN;
  if (existing) return { token: existing, created: false };
  const value = token();
  writeFileSync(path, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}ADMIN_TOKEN=${value}\n`);
  return { token: value, created: true };
}

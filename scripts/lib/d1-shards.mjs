// The D1 databases of a wrangler config: every `[[d1_databases]]` binding is a shard
// (docs/operations.md, Scaling), and each gets the one migrations/ folder. Used by
// `npm run db:migrate:local` and `db:migrate:remote`, `npm run dev`, the browser tests' server
// and the benchmark.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./dev-vars.mjs";

export const WRANGLER_CONFIG = join(ROOT, "wrangler.toml");

/** The binding names of the config's `[[d1_databases]]` tables, in file order. */
export function d1Bindings(configPath = WRANGLER_CONFIG) {
  const text = readFileSync(configPath, "utf8");
  const bindings = [];
  let inD1 = false;
  for (const line of text.split("\n")) {
    const header = /^\s*\[\[?([^\]]+)\]\]?\s*$/.exec(line);
    if (header) inD1 = header[1].trim() === "d1_databases";
    const binding = inD1 && /^\s*binding\s*=\s*"([^"]+)"/.exec(line);
    if (binding) bindings.push(binding[1]);
  }
  return bindings;
}

/**
 * `wrangler d1 migrations apply` for every binding: `where` is `--local` or `--remote`; `extra`
 * adds arguments (`--persist-to`, `-c`). `run(args)` runs wrangler and resolves to its exit code.
 * Stops at the first failure and returns its code.
 */
export async function migrateAll(run, { where = "--local", extra = [], configPath = WRANGLER_CONFIG, log = () => {} } = {}) {
  for (const binding of d1Bindings(configPath)) {
    log(`applying the migrations to ${binding} (${where.slice(2)})`);
    const code = await run(["d1", "migrations", "apply", binding, where, ...extra]);
    if (code !== 0) return code;
  }
  return 0;
}

#!/usr/bin/env node
// `npm run db:migrate:local` / `npm run db:migrate:remote`: applies migrations/ to every D1
// database of wrangler.toml (each shard, the directory's included), one after the other.
import { constants } from "node:os";
import { migrateAll } from "./lib/d1-shards.mjs";
import { spawnWrangler } from "./lib/wrangler.mjs";

const where = process.argv.includes("--remote") ? "--remote" : "--local";
const run = (args) =>
  new Promise((resolve) => {
    const child = spawnWrangler(args, { env: { CI: "true" } });
    child.once("error", () => resolve(1));
    child.once("exit", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 1)));
  });
process.exit(await migrateAll(run, { where, log: (line) => console.log(`[migrate] ${line}`) }));

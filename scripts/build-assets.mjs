#!/usr/bin/env node
// Copies the API reference page's script from the pinned `@scalar/api-reference` package into
// the Workers static assets folder (wrangler.toml `[assets]`), so the page loads nothing from a
// CDN and its code changes only when package.json's exact version does.
//
// The copy is generated, not committed (public/scalar/ is git-ignored), so every path that
// serves or ships the Worker runs this first: wrangler runs it as the `[build]` command before
// `wrangler dev` (npm run dev, bench, the browser tests) and `wrangler deploy` (npm run deploy),
// and vitest.config.ts calls it before the workerd tests start.
//
// The browser build of the package is one self-contained file: its CSS is inside the script,
// which inserts it as a <style> element (see the page's CSP in src/lib/reference-page.ts).
import { copyFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const ASSETS_DIR = join(ROOT, "public");
export const SCALAR_BUNDLE = join(ASSETS_DIR, "scalar", "standalone.js");

/** The package folder, found from its main entry (package.json's `exports` hides dist/browser). */
function scalarPackageDir() {
  // import.meta.resolve is synchronous from Node 20.6, which the scripts support.
  const main = fileURLToPath(import.meta.resolve("@scalar/api-reference"));
  let dir = dirname(main);
  while (!statSync(join(dir, "package.json"), { throwIfNoEntry: false })) dir = dirname(dir);
  return dir;
}

/** Copies the bundle when it is missing or differs from the installed package's; returns its version. */
export function buildAssets() {
  const pkgDir = scalarPackageDir();
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const source = join(pkgDir, "dist", "browser", "standalone.js");
  // Compared by content (npm gives every packed file the same mtime), and left untouched when
  // equal, so wrangler dev, which watches the assets folder, does not reload for nothing.
  const copied = statSync(SCALAR_BUNDLE, { throwIfNoEntry: false }) ? readFileSync(SCALAR_BUNDLE) : undefined;
  if (!copied?.equals(readFileSync(source))) {
    mkdirSync(dirname(SCALAR_BUNDLE), { recursive: true });
    copyFileSync(source, SCALAR_BUNDLE);
  }
  return version;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const version = buildAssets();
    console.log(`[build-assets] public/scalar/standalone.js from @scalar/api-reference ${version}`);
  } catch (error) {
    console.error(`[build-assets] could not copy the Scalar bundle: ${error.message} (run \`npm install\`)`);
    process.exit(1);
  }
}

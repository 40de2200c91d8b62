/**
 * Writes the generated Partner API OpenAPI document to the path in argv[2] (default
 * `openapi.json`), for `redocly lint` and for publishing. Runs under tsx on Node, so
 * `src/app.ts` and everything it imports must stay free of `cloudflare:*` modules; tsx
 * resolves the `@/` alias from tsconfig.json's `paths`.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";

interface PartnerApiModule {
  buildPartnerApi(): { openApiDocument(): unknown };
}

// Imported through a variable so `tsc -p tsconfig.node.json` (Node types only) does not
// type-check the Worker sources; `npm run typecheck` checks those with the Workers types.
const appModule = "@/app";
const { buildPartnerApi } = (await import(appModule)) as PartnerApiModule;

const target = resolve(process.argv[2] ?? "openapi.json");
writeFileSync(target, `${JSON.stringify(buildPartnerApi().openApiDocument(), null, 2)}\n`);
console.log(`Wrote ${target}`);

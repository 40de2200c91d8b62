/**
 * Writes the generated Partner API OpenAPI document to the path in argv[2] (default
 * `openapi.json`), for `redocly lint` and for publishing. Runs under tsx on Node; tsx
 * resolves the `@/` alias from tsconfig.json's `paths`.
 */
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { resolve } from "node:path";

// Building the document runs no Worker code, but modules it loads name the runtime's own
// `cloudflare:workers` (the OAuth library extends its WorkerEntrypoint; the AccessGate its
// DurableObject), which Node cannot load: here they are empty classes.
const RUNTIME_STUB = "data:text/javascript,export class WorkerEntrypoint {} export class DurableObject {}";
// The OAuth library warns at load time when the runtime lacks a compatibility flag that
// wrangler.toml sets; Node is not that runtime, and the document does not depend on it.
Object.assign(globalThis, { Cloudflare: { compatibilityFlags: { global_fetch_strictly_public: true } } });
registerHooks({
  resolve: (specifier, context, next) => (specifier === "cloudflare:workers" ? { url: RUNTIME_STUB, shortCircuit: true } : next(specifier, context)),
});

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

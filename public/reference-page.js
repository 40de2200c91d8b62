// Runs before Scalar's bundle on /api/v2/docs (src/lib/reference-page.ts). Zod, inside the
// bundle, probes whether it may compile validators with `Function("")`; the page's CSP forbids
// eval, so the probe fails safely but the browser reports a CSP violation on every load. In
// jitless mode Zod skips the probe and validates without generated code, as it would anyway.
// https://zod.dev/packages/core#jitless
globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };

// What `import { z } from "zod"` is in the deployed Worker (wrangler.toml `[alias]`): zod's own
// namespace, less the parts nothing in the Worker uses and that esbuild could not leave out on
// its own. @hono/zod-openapi hands the whole `z` namespace to a function
// (`extendZodWithOpenApi(z)`), which makes the bundler keep every member of it: all 49 message
// locales (about 360 KiB before minifying), the ahead-of-time schema compiler and the JSON
// Schema importer. Only those are left out here, each shadowed by `undefined` (a local export
// wins over `export *`); everything else, English messages included, is zod's own module
// (docs/decisions/platform.md, The bundle). test/node/lean-zod.test.ts checks both halves.
// `zod/v4` is the same modules as `zod` and is not aliased (the MCP SDK imports it by name).
export * from "zod/v4";
import * as z from "./zod.mjs";
import * as core from "./zod-core.mjs";

export { z, z as default, core };

// zod's message locales: English is registered by zod's schemas themselves (zod/v4/locales/en.js).
export const locales = undefined;
// z.compile and its helpers (zod/v4/core/compile.js).
export const compile = undefined;
export const withParser = undefined;
export const INVALID = undefined;
export const ZodCompileAsyncError = undefined;
export const ZodCompileUnsupportedError = undefined;
// z.fromJSONSchema (zod/v4/classic/from-json-schema.js).
export const fromJSONSchema = undefined;

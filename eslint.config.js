// Flat config: @eslint/js recommended everywhere, typescript-eslint recommended for TypeScript.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The Node globals the operator scripts use (the `globals` package is not a dependency).
const nodeGlobals = Object.fromEntries(
  [
    "process", "console", "fetch", "URL", "URLSearchParams", "Buffer", "AbortController", "AbortSignal",
    "TextEncoder", "TextDecoder", "Headers", "Request", "Response", "crypto", "structuredClone",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "queueMicrotask",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  {
    ignores: [
      "node_modules/", ".wrangler/", "migrations/", "openapi.json", "coverage/", ".bench/",
      // Scalar's bundle, copied from its package (scripts/build-assets.mjs); Playwright's output.
      "public/scalar/", "test-results/", "playwright-report/",
      // The SDK's build output and the types it generates from openapi.json.
      "sdk/dist/", "sdk/src/generated/",
    ],
  },
  js.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
    extends: [tseslint.configs.recommended],
  },
  {
    files: ["scripts/**/*.{js,mjs,cjs}", "*.config.{js,mjs,cjs}"],
    languageOptions: { globals: nodeGlobals },
  },
  {
    // Tests read arbitrary JSON response bodies (`res.body.contact.contact_uuid`); typing each
    // one would add noise without catching bugs, so `any` is allowed there.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);

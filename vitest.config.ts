import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export const TEST_ADMIN_TOKEN = "test-admin-token";
/** Production's rule: a deployment without TOKEN_PEPPER serves nothing (test/middleware/require-token-pepper.test.ts runs without one). */
export const TEST_TOKEN_PEPPER = "test-token-pepper-9c4e1f0a7b2d";

const alias = { "@": path.join(import.meta.dirname, "src") };
// In workerd the tests import zod as the deployed bundle does (wrangler.toml `[alias]`,
// build/zod.mjs), so they run the Worker's own zod; `zod/v4` and the Node tests get zod itself.
const workerAlias = [
  { find: "@", replacement: alias["@"] },
  { find: /^zod$/, replacement: path.join(import.meta.dirname, "build", "zod.mjs") },
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      projects: [
        {
          // The API through HTTP against real local D1, Durable Objects and Queues, inside workerd.
          resolve: { alias: workerAlias },
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // A database of its own for the test of upgrading a one-database deployment
                // (test/db/upgrade.test.ts); not a shard (its name is not DB_*).
                d1Databases: ["UPGRADE_DB"],
                // For the tests only: Twilio's signing helper (twilio/lib/webhooks) needs node:crypto.
                // The Worker itself uses no Node API, and production runs without the flag.
                compatibilityFlags: ["nodejs_compat"],
                // Pinned here so a developer's .dev.vars (which the plugin also reads) cannot change them.
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
                  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
                  VOICE_PROVIDER: "simulated",
                  SMS_PROVIDER: "simulated",
                  SIMULATED_CALL_SPEED: "1",
                  TOKEN_PEPPER: TEST_TOKEN_PEPPER,
                  // `npm run dev` writes "true" into .dev.vars; the tests assume production's rule.
                  ALLOW_LOOPBACK_WEBHOOKS: "false",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/node/**"],
            setupFiles: ["./test/setup/apply-migrations.ts"],
            testTimeout: 30_000,
          },
        },
        {
          // Checks of the project that need Node tools (the OpenAPI linters), on Node.
          resolve: { alias },
          test: { name: "node", include: ["test/node/**/*.test.ts"], environment: "node", testTimeout: 120_000 },
        },
      ],
    },
  };
});

import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export const TEST_ADMIN_TOKEN = "test-admin-token";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    resolve: { alias: { "@": path.join(import.meta.dirname, "src") } },
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Pinned here so a developer's .dev.vars (which the plugin also reads) cannot change them.
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: TEST_ADMIN_TOKEN,
            LOG_LEVEL: "silent",
            VOICE_PROVIDER: "simulated",
            SIMULATED_CALL_SPEED: "1",
            TOKEN_PEPPER: "",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup/apply-migrations.ts"],
      testTimeout: 30_000,
    },
  };
});

// Browser tests (`npm run test:browser`): Playwright driving the system's Chromium against
// `wrangler dev`, with every request off this machine refused (test/browser/fixtures.ts).
// Playwright's own browser download needs the internet, so we point it at Debian's package
// (`apt-get install chromium`); CHROMIUM_PATH names another Chromium or Chrome binary.
import { defineConfig } from "@playwright/test";
import { ADMIN_TOKEN, BASE_URL, PORT } from "./test/browser/server";

export default defineConfig({
  testDir: "test/browser",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results/browser",
  // One wrangler dev and a shared 2-core machine: one worker keeps timings predictable.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"]],
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    baseURL: BASE_URL,
    headless: true,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  webServer: {
    command: "node scripts/browser-server.mjs",
    // /health needs no storage; the server migrates its database before wrangler dev starts.
    url: `${BASE_URL}/health`,
    // A fresh server every run, never a leftover one with other data or code.
    reuseExistingServer: false,
    timeout: 180_000,
    // wrangler's banner stays quiet; its errors (stderr) show in the test output.
    stdout: "ignore",
    stderr: "pipe",
    env: {
      BROWSER_TEST_PORT: String(PORT),
      BROWSER_TEST_ADMIN_TOKEN: ADMIN_TOKEN,
      // Offline, wrangler would try (and fail) to fetch Request.cf data.
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    },
  },
});

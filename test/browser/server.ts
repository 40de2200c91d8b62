// Where the browser tests' server listens and the operator token it accepts, shared by
// playwright.config.ts (which starts scripts/browser-server.mjs with them) and the fixtures.
export const PORT = Number(process.env.BROWSER_TEST_PORT || 8797);
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const ADMIN_TOKEN = "browser-test-admin-token";

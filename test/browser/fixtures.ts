/// <reference lib="dom" />
// (DOM types for the functions Playwright runs inside the page, like the init script below.)
//
// Fixtures every browser test gets (import `test` and `expect` from here, not from
// @playwright/test): the browser may reach only the local server, and every Content Security
// Policy violation is recorded, so a test can assert the page needed nothing from elsewhere
// and broke no policy.
import { test as base, expect, type BrowserContext } from "@playwright/test";

export { expect };
export { ADMIN_TOKEN, BASE_URL } from "./server";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface BrowserGuards {
  /** URLs the pages tried to load from any host but this machine (each was refused). */
  externalRequests: string[];
  /** CSP violations: `securitypolicyviolation` events and console messages about the policy. */
  cspViolations: string[];
}

async function refuseExternalRequests(context: BrowserContext, refused: string[]) {
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (LOCAL_HOSTS.has(url.hostname)) return route.fallback();
    refused.push(url.href);
    return route.abort("blockedbyclient");
  });
  await context.routeWebSocket(/.*/, (ws) => {
    const url = new URL(ws.url());
    if (LOCAL_HOSTS.has(url.hostname)) return ws.connectToServer();
    refused.push(url.href);
    return ws.close();
  });
}

async function recordCspViolations(context: BrowserContext, violations: string[]) {
  await context.exposeBinding("__recordCspViolation", (_source, violation: string) => {
    violations.push(violation);
  });
  // Before any script of the page, so violations during its first load are seen too.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __recordCspViolation: (v: string) => void }).__recordCspViolation;
      report(`${event.effectiveDirective} blocked ${event.blockedURI || "(inline)"} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  context.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) violations.push(`console: ${message.text()}`);
  });
}

/**
 * The same guards for a context a test opens itself (`browser.newContext(...)`, e.g. one with
 * JavaScript disabled, where the init script cannot run but the console still reports
 * violations). Call it before the context opens a page.
 */
export async function guardContext(context: BrowserContext): Promise<BrowserGuards> {
  const guards: BrowserGuards = { externalRequests: [], cspViolations: [] };
  await refuseExternalRequests(context, guards.externalRequests);
  await recordCspViolations(context, guards.cspViolations);
  return guards;
}

/** A page needed nothing from another host and broke no Content Security Policy. */
export function expectClean(guards: BrowserGuards) {
  expect(guards.externalRequests, "requests to other hosts").toEqual([]);
  expect(guards.cspViolations, "Content Security Policy violations").toEqual([]);
}

export const test = base.extend<BrowserGuards>({
  externalRequests: [
    async ({ context }, use) => {
      const refused: string[] = [];
      await refuseExternalRequests(context, refused);
      await use(refused);
    },
    { auto: true },
  ],
  cspViolations: [
    async ({ context }, use) => {
      const violations: string[] = [];
      await recordCspViolations(context, violations);
      await use(violations);
    },
    { auto: true },
  ],
});

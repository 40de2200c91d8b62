/// <reference lib="dom" />
// (DOM types for the functions Playwright runs inside the page: the clipboard, the focus.)
//
// The agency dashboard in a real browser (issue 12): an owner signs in with a one-time link
// the operator API issued, manages API keys on the pages, and the Partner API called with the
// token read from the page sees every change on the very next request. No request leaves this
// machine and no page breaks its Content Security Policy (test/browser/fixtures.ts).
import type { Locator, Page } from "@playwright/test";
import { BASE_URL, expect, expectClean, guardContext, test } from "./fixtures";
import { createAgencyWithOwner, createKeyAsOperator, expectRefusal, keyRecord, partnerGet, signInLink } from "./operator";

const KEYS_PATH = "/dashboard/integrations/api-keys";
const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A scope's checkbox in the page's "Scopes" fieldset, by its label ("contacts — contact CRM …"). */
const scopeBox = (page: Page, scope: string) => page.getByRole("group", { name: "Scopes" }).getByLabel(new RegExp(`^${escapeRegExp(scope)} —`));

/** Opens a sign-in link as a member would (typed or pasted: no referring site) and lands on the keys page. */
async function signIn(page: Page, url: string) {
  const response = await page.goto(url);
  await expect(page).toHaveURL(KEYS_PATH);
  expect(response?.status()).toBe(200);
  expect(response?.headers()["content-security-policy"]).toBe(DASHBOARD_CSP);
  expect(response?.headers()["cache-control"]).toBe("no-store");
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
}

/** Fills and submits the create form with the mouse; returns the access token read from the page that answers it. */
async function createKeyOnPage(page: Page, name: string, scopes: string[]) {
  await page.getByLabel("Name", { exact: true }).fill(name);
  for (const scope of scopes) await scopeBox(page, scope).check();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Key “${name}” created` })).toBeVisible();
  const field = page.getByLabel("Access token", { exact: true });
  await expect(field).not.toBeEditable();
  const token = await field.inputValue();
  expect(token).toMatch(/^pa_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
  return token;
}

/** The row of the keys table for the key of this name. */
const keyRow = (page: Page, name: string) => page.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });

/** From a key's page: the revoke link, the confirmation page, then the confirming button. */
async function revokeOnPage(page: Page, name: string) {
  await page.getByRole("link", { name: "Revoke this key…" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `Revoke “${name}”?` })).toBeVisible();
  await page.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("status")).toHaveText("The key was revoked: requests made with its access token now fail with 401.");
  await expect(page.getByRole("definition").filter({ hasText: /^revoked$/ })).toBeVisible();
}

/** Presses Tab until `target` has the focus (as a keyboard user would reach it), at most `max` times. */
async function tabTo(page: Page, target: Locator, max = 40) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  await expect(target, `reached with at most ${max} presses of Tab`).toBeFocused();
}

test.describe("the agency dashboard: API keys", () => {
  // Chromium grants the copy button's navigator.clipboard.writeText, and the test's readText, only with these.
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("an owner signs in with a link, creates a key with two scopes, copies and uses its token, and revokes it", async ({
    page,
    request,
    externalRequests,
    cspViolations,
  }, testInfo) => {
    const agency = await createAgencyWithOwner(request);
    const link = await signInLink(request, agency.ownerUuid);
    await signIn(page, link);
    await expect(page.getByText(`${agency.agencyName} · signed in as ${agency.ownerName} (owner)`)).toBeVisible();
    await expect(page.getByText("This agency has no API keys yet.")).toBeVisible();

    // The link worked once.
    const reused = await page.goto(link);
    expect(reused?.status()).toBe(410);
    await expect(page.getByRole("heading", { level: 1, name: "Sign-in link used or expired" })).toBeVisible();
    await page.goto(KEYS_PATH);
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();

    // Two scopes ticked by their labels; "never expires" is not offered for them.
    await page.getByLabel("Name", { exact: true }).fill("CRM sync");
    await scopeBox(page, "contacts").check();
    await scopeBox(page, "calendar").check();
    await expect(page.getByLabel("Never expires")).toBeHidden();
    await page.getByRole("button", { name: "Create key" }).click();

    // The secrets, shown once: read-only fields, each with a copy button the script revealed.
    await expect(page.getByRole("heading", { level: 1, name: "Key “CRM sync” created" })).toBeVisible();
    await expect(page.getByText("The key holds: calendar, contacts.")).toBeVisible();
    const tokenField = page.getByLabel("Access token", { exact: true });
    const rotateKeyField = page.getByLabel("Rotate key", { exact: true });
    await expect(tokenField).not.toBeEditable();
    await expect(rotateKeyField).not.toBeEditable();
    const token = await tokenField.inputValue();
    expect(token).toMatch(/^pa_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(await rotateKeyField.inputValue()).toMatch(/^par_[A-Za-z0-9_-]{43}$/);
    // The secrets are masked in the screenshot: a test server's, but screenshots travel.
    await page.screenshot({ path: testInfo.outputPath("keys-secrets-shown-once.png"), fullPage: true, mask: [tokenField, rotateKeyField] });

    await page.getByRole("button", { name: "Copy access token" }).click();
    await expect(page.getByRole("status").filter({ hasText: "copied" })).toHaveText("Access token copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await page.getByRole("button", { name: "Copy rotate key" }).click();
    await expect(page.getByRole("status").filter({ hasText: "copied" })).toHaveText("Rotate key copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await rotateKeyField.inputValue());

    // The token works at once, on its scopes only.
    expect((await partnerGet(request, "/contacts", token)).status).toBe(200);
    expectRefusal(await partnerGet(request, "/voice-ai/agents", token), 403, "Token missing required scope: voice-ai", "insufficient_scope");

    // The list: the key, its scopes and status; the secrets are never shown again.
    await page.getByRole("link", { name: "API keys" }).click();
    const row = keyRow(page, "CRM sync");
    await expect(row.getByRole("cell")).toHaveText(["calendar, contacts", /UTC$/, /UTC$/, /^(never|.* UTC)$/, "active"]);
    // Last used: written behind the admitted request (after its response), so it may take a moment.
    await expect(async () => {
      await page.reload();
      await expect(row.getByRole("cell").nth(3)).toHaveText(/UTC$/, { timeout: 500 });
    }).toPass({ timeout: 15_000 });
    expect(await page.content()).not.toContain(token);
    await page.screenshot({ path: testInfo.outputPath("keys-list.png"), fullPage: true });

    // Revocation asks first: the confirmation page alone changes nothing.
    await row.getByRole("link", { name: "CRM sync" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API key “CRM sync”" })).toBeVisible();
    await page.getByRole("link", { name: "Revoke this key…" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Revoke “CRM sync”?" })).toBeVisible();
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API key “CRM sync”" })).toBeVisible();
    expect((await partnerGet(request, "/contacts", token)).status).toBe(200);

    await revokeOnPage(page, "CRM sync");
    expectRefusal(await partnerGet(request, "/contacts", token), 401, "Invalid or missing token", "invalid_token");

    await page.getByRole("link", { name: "← All API keys" }).click();
    await expect(keyRow(page, "CRM sync").getByRole("cell").last()).toHaveText("revoked");
    await page.screenshot({ path: testInfo.outputPath("keys-list-revoked.png"), fullPage: true });

    expectClean({ externalRequests, cspViolations });
  });

  test("edited scopes hold from the next Partner API request on", async ({ page, request, externalRequests, cspViolations }) => {
    const agency = await createAgencyWithOwner(request);
    await signIn(page, await signInLink(request, agency.ownerUuid));
    const token = await createKeyOnPage(page, "Scope edit", ["contacts", "calendar"]);
    expect((await partnerGet(request, "/contacts", token)).status).toBe(200);
    expectRefusal(await partnerGet(request, "/voice-ai/agents", token), 403, "Token missing required scope: voice-ai", "insufficient_scope");

    await page.getByRole("link", { name: "Go to the key" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "API key “Scope edit”" })).toBeVisible();
    await expect(scopeBox(page, "contacts")).toBeChecked();
    await expect(scopeBox(page, "calendar")).toBeChecked();
    await scopeBox(page, "contacts").uncheck();
    await scopeBox(page, "voice-ai").check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status")).toHaveText("Changes saved. The next request made with this key sees them.");
    await expect(page.getByRole("definition").filter({ hasText: /^calendar, voice-ai$/ })).toBeVisible();

    expect((await partnerGet(request, "/voice-ai/agents", token)).status).toBe(200);
    expectRefusal(await partnerGet(request, "/contacts", token), 403, "Token missing required scope: contacts", "insufficient_scope");

    // A refused edit changes nothing: no scopes at all is the operator API's 400, shown above the form.
    await scopeBox(page, "calendar").uncheck();
    await scopeBox(page, "voice-ai").uncheck();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("alert")).toHaveText("scopes must list at least one scope");
    expect((await partnerGet(request, "/voice-ai/agents", token)).status).toBe(200);

    expectClean({ externalRequests, cspViolations });
  });

  test("offers “never expires” only while calendar is the one scope, and works from the keyboard alone", async ({
    page,
    request,
    externalRequests,
    cspViolations,
  }) => {
    const agency = await createAgencyWithOwner(request);
    await signIn(page, await signInLink(request, agency.ownerUuid));
    const neverExpires = page.getByLabel("Never expires");

    // With the mouse: shown for calendar alone, hidden for anything else.
    await expect(neverExpires).toBeHidden();
    for (const [scopes, offered] of [
      [["calendar"], true],
      [["*"], false],
      [["contacts"], false],
      [["calendar", "contacts"], false],
      [["calendar", "*"], false],
    ] as const) {
      for (const box of await page.getByRole("group", { name: "Scopes" }).getByRole("checkbox").all()) await box.uncheck();
      for (const scope of scopes) await scopeBox(page, scope).check();
      if (offered) await expect(neverExpires, scopes.join(", ")).toBeVisible();
      else await expect(neverExpires, scopes.join(", ")).toBeHidden();
    }
    for (const box of await page.getByRole("group", { name: "Scopes" }).getByRole("checkbox").all()) await box.uncheck();

    // Ticked, then another scope: the box stays in sight while it is checked (it would be sent
    // unseen otherwise), and the server refuses the key: the form comes back with the box
    // unchecked, still shown, and the dashboard's reason beside it.
    await page.getByLabel("Name", { exact: true }).fill("Forever and more");
    await scopeBox(page, "calendar").check();
    await neverExpires.check();
    await scopeBox(page, "contacts").check();
    await expect(neverExpires).toBeVisible();
    await expect(neverExpires).toBeChecked();
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByRole("alert")).toHaveText("Only calendar-only keys can never expire");
    await expect(neverExpires).toBeVisible();
    await expect(neverExpires).not.toBeChecked();
    await expect(neverExpires).toHaveAccessibleDescription(/Only calendar-only keys can never expire/);
    await expect(page.getByText("This agency has no API keys yet.")).toBeVisible();
    // On a fresh form, the box ticked then unticked by hand with another scope checked is hidden again.
    await page.goto(KEYS_PATH);
    await scopeBox(page, "calendar").check();
    await neverExpires.check();
    await scopeBox(page, "contacts").check();
    await expect(neverExpires).toBeVisible();
    await neverExpires.uncheck();
    await expect(neverExpires).toBeHidden();
    await page.goto(KEYS_PATH);

    // From the keyboard: Tab to each control, Space toggles a checkbox, Enter submits.
    // Focus back at the top of the page, then only keys.
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    await tabTo(page, page.getByLabel("Name", { exact: true }));
    await page.keyboard.type("Voice line");
    await tabTo(page, scopeBox(page, "calendar"));
    await page.keyboard.press("Space");
    await expect(scopeBox(page, "calendar")).toBeChecked();
    await expect(neverExpires).toBeVisible();
    await tabTo(page, scopeBox(page, "contacts"));
    await page.keyboard.press("Space");
    await expect(neverExpires).toBeHidden();
    await page.keyboard.press("Space");
    await expect(scopeBox(page, "contacts")).not.toBeChecked();
    await expect(neverExpires).toBeVisible();
    await tabTo(page, neverExpires);
    await page.keyboard.press("Space");
    await expect(neverExpires).toBeChecked();
    const create = page.getByRole("button", { name: "Create key" });
    await tabTo(page, create);
    await page.keyboard.press("Enter");

    await expect(page.getByRole("heading", { level: 1, name: "Key “Voice line” created" })).toBeVisible();
    await expect(page.getByText("The access token expires: never.")).toBeVisible();
    const token = await page.getByLabel("Access token", { exact: true }).inputValue();
    const keyUuid = `${token.slice(3, 11)}-${token.slice(11, 15)}-${token.slice(15, 19)}-${token.slice(19, 23)}-${token.slice(23, 35)}`;
    expect(await keyRecord(request, agency.agencyUuid, keyUuid)).toMatchObject({ name: "Voice line", scopes: ["calendar"], expires_at: null });
    expectRefusal(await partnerGet(request, "/contacts", token), 403, "Token missing required scope: contacts", "insufficient_scope");

    expectClean({ externalRequests, cspViolations });
  });
});

test.describe("the agency dashboard without JavaScript", () => {
  test("signs in, creates, edits and revokes keys; only the copy buttons are missing", async ({ browser, request }) => {
    const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled: false });
    const guards = await guardContext(context);
    try {
      const page = await context.newPage();
      const agency = await createAgencyWithOwner(request);
      const operatorKey = await createKeyAsOperator(request, agency.agencyUuid, "Operator key", ["contacts"]);
      expect((await partnerGet(request, "/contacts", operatorKey.accessToken)).status).toBe(200);

      await signIn(page, await signInLink(request, agency.ownerUuid));
      await expect(keyRow(page, "Operator key").getByRole("cell").first()).toHaveText("contacts");
      // The stylesheet alone hides "never expires" until calendar is the one scope.
      await expect(page.getByLabel("Never expires")).toBeHidden();
      await scopeBox(page, "calendar").check();
      await expect(page.getByLabel("Never expires")).toBeVisible();
      await scopeBox(page, "calendar").uncheck();

      // Created on the page: the token is in its read-only field to copy by hand; no copy buttons.
      const token = await createKeyOnPage(page, "No-JS key", ["contacts"]);
      await expect(page.getByRole("button", { name: /^Copy / })).toHaveCount(0);
      await expect(page.locator("button[data-copy]")).toHaveCount(2);
      await expect(page.locator("button[data-copy]").first()).toBeHidden();
      expect((await partnerGet(request, "/contacts", token)).status).toBe(200);

      // Edited on the page.
      await page.getByRole("link", { name: "Go to the key" }).click();
      await scopeBox(page, "voice-ai").check();
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByRole("status")).toHaveText("Changes saved. The next request made with this key sees them.");
      expect((await partnerGet(request, "/voice-ai/agents", token)).status).toBe(200);

      // The operator's key, revoked on the page.
      await page.getByRole("link", { name: "← All API keys" }).click();
      await keyRow(page, "Operator key").getByRole("link", { name: "Operator key" }).click();
      await revokeOnPage(page, "Operator key");
      expectRefusal(await partnerGet(request, "/contacts", operatorKey.accessToken), 401, "Invalid or missing token", "invalid_token");
      expect((await partnerGet(request, "/contacts", token)).status).toBe(200);

      // Sign out is a form too; afterwards the pages are closed.
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Signed out" })).toBeVisible();
      await page.goto(KEYS_PATH);
      await expect(page).toHaveURL("/dashboard/signed-out");

      expectClean(guards);
    } finally {
      await context.close();
    }
  });
});

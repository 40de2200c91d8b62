// Connected apps in a real browser (issue 27): an app sends the agency's owner to the consent
// page, the owner signs in with a one-time link and comes back to it, approves, and the app's
// tokens work; the owner then finds the app under Connected apps and revokes it, and its token
// is refused on its very next request. No request leaves this machine and no page breaks its
// Content Security Policy (the consent page's form may lead to the app's own origin only).
import { createHash, randomBytes } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { BASE_URL, expect, expectClean, test } from "./fixtures";
import { createAgencyWithOwner, expectRefusal, partnerGet, signInLink } from "./operator";

/** The app's own site: another local origin (another site, too), answered by the test itself. */
const APP_SITE = "http://localhost:9";
const CALLBACK = `${APP_SITE}/oauth/callback`;

const base64url = (bytes: Buffer) => bytes.toString("base64url");

async function registerApp(request: APIRequestContext, name: string) {
  const res = await request.post("/oauth/register", {
    data: { client_name: name, redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).client_id as string;
}

test.describe("the agency dashboard: connected apps", () => {
  test("an owner signs in from the consent page, approves an app, sees it under Connected apps and revokes it", async ({
    page,
    request,
    externalRequests,
    cspViolations,
  }, testInfo) => {
    const agency = await createAgencyWithOwner(request);
    const appName = `Pipeline Sync ${randomBytes(3).toString("hex")}`;
    const clientId = await registerApp(request, appName);
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash("sha256").update(verifier).digest());
    const authorize = `/dashboard/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: "contacts calendar",
      state: "browser-state",
      code_challenge: challenge,
      code_challenge_method: "S256",
    })}`;

    // The app's own pages: one with a link to connect, and the one the browser lands on with the code.
    const landed: string[] = [];
    await page.route(`${CALLBACK}**`, (route) => {
      landed.push(route.request().url());
      return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>App</title><p>Connected.</p>" });
    });
    await page.route(`${APP_SITE}/settings`, (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: `<!doctype html><title>App</title><a href="${BASE_URL}${authorize}">Connect your agency</a>` }),
    );
    const connectFromTheApp = async () => {
      await page.goto(`${APP_SITE}/settings`);
      await page.getByRole("link", { name: "Connect your agency" }).click();
    };

    // No session yet: the page asks to sign in, and remembers where to come back to.
    await connectFromTheApp();
    await expect(page.getByRole("heading", { level: 1, name: `Sign in to connect ${appName}` })).toBeVisible();
    await page.goto(await signInLink(request, agency.ownerUuid));
    await expect(page.getByRole("heading", { level: 1, name: `Connect ${appName} to ${agency.agencyName}?` })).toBeVisible();
    await expect(page.locator(".redirect-host")).toHaveText("localhost");
    await expect(page.getByText("This sends access to an app on your own computer.")).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: /^contacts — contact CRM/ })).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: /^calendar — availability and create bookings/ })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("consent-page.png"), fullPage: true });

    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:9\/oauth\/callback\?/);
    const back = new URL(landed.at(-1)!);
    expect(back.searchParams.get("state")).toBe("browser-state");
    const code = back.searchParams.get("code");
    expect(code).not.toBeNull();

    // The app exchanges its code (its own HTTP client, not the browser) and calls the API.
    const exchanged = await request.post("/oauth/token", {
      form: { grant_type: "authorization_code", client_id: clientId, code: code!, code_verifier: verifier, redirect_uri: CALLBACK },
    });
    expect(exchanged.status(), await exchanged.text()).toBe(200);
    const tokens = await exchanged.json();
    expect(tokens.agency_uuid).toBe(agency.agencyUuid);
    expect((await partnerGet(request, "/contacts", tokens.access_token)).status).toBe(200);

    // Connected apps: the app, who approved it, and the revocation behind a confirmation.
    await page.goto("/dashboard/integrations/apps");
    await expect(page.getByRole("heading", { level: 1, name: "Connected apps" })).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: appName });
    await expect(row.getByRole("cell", { name: agency.ownerName })).toBeVisible();
    await expect(row.getByRole("cell", { name: "calendar, contacts" })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("connected-apps.png"), fullPage: true });
    await row.getByRole("link", { name: "Revoke…" }).click();
    await expect(page.getByRole("heading", { level: 1, name: `Revoke “${appName}”?` })).toBeVisible();
    await page.getByRole("button", { name: "Revoke access" }).click();
    await expect(page.getByRole("status")).toHaveText("The app's access was revoked: its next request fails with 401.");
    await expect(page.getByRole("row").filter({ hasText: appName })).toContainText("revoked");

    expectRefusal(await partnerGet(request, "/contacts", tokens.access_token), 401, "Invalid or missing token", "invalid_token");

    // Signed in now, the owner connects it again from the app's site: a navigation from another
    // site carries no SameSite=Strict cookie, so the page loads itself again and finds the session.
    await connectFromTheApp();
    await expect(page.getByRole("heading", { level: 1, name: `Connect ${appName} to ${agency.agencyName}?` })).toBeVisible();
    await page.getByRole("button", { name: "Deny" }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:9\/oauth\/callback\?/);
    expect(new URL(landed.at(-1)!).searchParams.get("error")).toBe("access_denied");
    expectClean({ externalRequests, cspViolations });
  });
});

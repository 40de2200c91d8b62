// A one-time sign-in link to the agency dashboard for the demo owner, for the `npm run dev`
// banner. Issued through the operator API like any other (15 minutes, single use), so each
// run of `npm run dev` prints a fresh one; `npm run admin -- dashboard-link` gives another.
import { errorMessage, requestJson } from "./http.mjs";

export const DEMO_OWNER_EMAIL = "owner@demo-agency.example";

/** The link's URL and expiry, or null (with a note) when it could not be issued. */
export async function seedDashboardLink({ baseUrl, adminToken, token, log, notes }) {
  // No operator list of members: the demo key finds the owner through the Partner API.
  const owners = await requestJson(baseUrl, "GET", "/api/v2/users?role=owner", { token });
  const owner = owners.ok ? owners.body.members?.find((m) => m.email === DEMO_OWNER_EMAIL) : undefined;
  if (!owner) {
    notes.push(`No dashboard sign-in link: the demo owner ${DEMO_OWNER_EMAIL} was not found (${owners.ok ? "not listed" : errorMessage(owners)}).`);
    return null;
  }
  const link = await requestJson(baseUrl, "POST", `/admin/v1/members/${owner.agent_uuid}/dashboard-links`, { token: adminToken });
  if (!link.ok) {
    notes.push(`No dashboard sign-in link: ${errorMessage(link)}`);
    return null;
  }
  log(`issued a dashboard sign-in link for ${DEMO_OWNER_EMAIL}`);
  return { url: link.body.url, expiresAt: link.body.expires_at, memberUuid: owner.agent_uuid };
}

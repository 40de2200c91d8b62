// Demo lead orders, a pending invite and curated settings for `npm run dev`. Idempotent:
// orders are looked up by name first, an invite's 409 means "already pending", and the
// settings patch sets the same values every time. Failures become notes, never a crash.
import { errorMessage, requestJson } from "./http.mjs";

const LEAD_ORDERS = [
  { name: "Texas and Oklahoma buyers", daily_max: 25, states: ["TX", "OK"] },
  { name: "Florida sellers", daily_max: 10, states: ["FL"], paused: true },
];

const INVITE = { email: "jordan@demo-agency.example", role: "agent" };

const SETTINGS = {
  // All day, every day: a Voice AI call placed against the demo agency dials at once, whenever
  // `npm run dev` runs, instead of waiting as `scheduled` for the next opening in New York.
  calling_hours: { start: "00:00", end: "24:00", days: [0, 1, 2, 3, 4, 5, 6] },
  booking: { default_slot_minutes: 30, buffer_minutes: 10, min_notice_minutes: 120 },
  voice: { max_call_minutes: 15, voicemail_behavior: "leave_message" },
};

const routeMissing = (res) => res.status === 404 && res.body?.error === "Route not found";

export async function seedOrdersAndUsers({ baseUrl, adminToken, token, agencyUuid, log = () => {}, notes = [] }) {
  const adminCall = (method, path, body) => requestJson(baseUrl, method, `/admin/v1${path}`, { token: adminToken, body });
  const partner = (method, path, body) => requestJson(baseUrl, method, `/api/v2${path}`, { token, body });
  const problem = (what, res) => notes.push(`${what} failed (HTTP ${res.status}): ${errorMessage(res)}`);

  // Settings
  const settings = await partner("PATCH", "/settings", SETTINGS);
  if (routeMissing(settings)) notes.push("Settings were not seeded: this build has no /api/v2/settings route yet.");
  else if (!settings.ok) problem("Setting the demo settings", settings);
  else log("settings: calling hours all day, every day (demo calls dial at once), 10-minute booking buffer, voicemail messages");

  // Lead orders: bought through the operator API, so look them up by name through the partner API first.
  const listed = await partner("GET", "/lead-orders?limit=100");
  if (routeMissing(listed)) {
    notes.push("Lead orders were not seeded: this build has no /api/v2/lead-orders route yet.");
  } else if (!listed.ok) {
    problem("Listing lead orders", listed);
  } else {
    const names = new Set((listed.body.lead_orders ?? []).map((o) => o.name));
    for (const { paused, ...order } of LEAD_ORDERS) {
      if (names.has(order.name)) continue;
      const created = await adminCall("POST", `/agencies/${agencyUuid}/lead-orders`, order);
      if (created.status !== 201) {
        problem(`Creating lead order "${order.name}"`, created);
        continue;
      }
      log(`created lead order "${order.name}" (${order.states.join(", ")}, ${order.daily_max}/day)`);
      if (paused) {
        const res = await partner("POST", `/lead-orders/${created.body.lead_order.order_uuid}/pause`, { paused: true });
        if (!res.ok) problem(`Pausing lead order "${order.name}"`, res);
      }
    }
  }

  // A pending invite: 409 means it is already pending (or the person already joined).
  const invited = await partner("POST", "/users/invites", INVITE);
  if (invited.status === 201) log(`invited ${INVITE.email} (${INVITE.role})`);
  else if (routeMissing(invited)) notes.push("The demo invite was not seeded: this build has no /api/v2/users/invites route yet.");
  else if (invited.status !== 409) problem(`Inviting ${INVITE.email}`, invited);
}

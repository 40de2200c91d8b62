// Demo calendar for `npm run dev`: the demo agency's working hours (Mon-Fri 09:00-17:00
// New York time, 30-minute slots), a booking widget and two booked appointments. Idempotent
// like the rest of the seed: each record is looked up first and only created when missing,
// through the same partner and operator APIs a partner or the dashboard uses.
import { errorMessage, requestJson } from "./http.mjs";

export const DEMO_TIMEZONE = "America/New_York";
export const DEMO_HOURS = {
  timezone: DEMO_TIMEZONE,
  slot_minutes: 30,
  days: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: "09:00", end: "17:00" })),
};
export const DEMO_WIDGET = { name: "30-minute buyer consultation", duration_minutes: 30 };

/** Booked into the first free slot at or after `time` on the first and second open day. */
const DEMO_APPOINTMENTS = [
  { title: "Buyer consultation (demo)", time: "10:00", contact: { first_name: "Ava", last_name: "Martinez", email: "ava.martinez@example.com" } },
  { title: "Investment property review (demo)", time: "14:00", contact: { first_name: "Liam", last_name: "Chen", email: "liam.chen@example.com" } },
];

const DAY_MS = 86_400_000;
const routeMissing = (res) => res.status === 404 && res.body?.error === "Route not found";
const localToday = (zone) => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date());
const addDays = (date, days) => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Seeds the calendar. Failures answered by the API become a line in `notes` (the rest of the
 * seed and the banner still matter more); an unreachable server still throws.
 */
export async function seedCalendar({ baseUrl, adminToken, agencyUuid, token, log = () => {}, notes }) {
  const partner = (method, path, body) => requestJson(baseUrl, method, `/api/v2${path}`, { token, body });
  const adminCall = (method, path, body) => requestJson(baseUrl, method, `/admin/v1${path}`, { token: adminToken, body });
  const skip = (what, res) => notes.push(`${what} failed (HTTP ${res.status}): ${errorMessage(res)}`);

  // Working hours of the agency calendar: set once, then left as the operator changes them.
  const hours = await partner("GET", "/calendar/hours");
  if (routeMissing(hours)) {
    notes.push("The demo calendar was not seeded: this build has no /api/v2/calendar routes yet.");
    return;
  }
  if (hours.status === 404) {
    const set = await partner("PUT", "/calendar/hours", DEMO_HOURS);
    if (!set.ok) return skip("Setting the demo working hours", set);
    log("set working hours Mon-Fri 09:00-17:00 America/New_York, 30-minute slots");
  } else if (hours.ok) {
    log("working hours exist");
  } else {
    return skip("Reading the working hours", hours);
  }

  // Booking widget (created by the operator API, listed by the partner API).
  const widgets = await partner("GET", "/booking-widgets?limit=100");
  if (!widgets.ok) return skip("Listing booking widgets", widgets);
  let widget = widgets.body.booking_widgets.find((w) => w.name === DEMO_WIDGET.name);
  if (widget) {
    log(`booking widget "${widget.name}" exists`);
  } else {
    const created = await adminCall("POST", `/agencies/${agencyUuid}/booking-widgets`, DEMO_WIDGET);
    if (created.status !== 201) return skip("Creating the demo booking widget", created);
    widget = created.body.booking_widget;
    log(`created booking widget "${widget.name}" (${widget.booking_widget_uuid})`);
  }

  // Two appointments, found again by title.
  const existing = await partner("GET", "/appointments?limit=100");
  if (!existing.ok) return skip("Listing appointments", existing);
  const titles = new Set(existing.body.appointments.map((a) => a.title));
  const missing = DEMO_APPOINTMENTS.filter((a) => !titles.has(a.title));
  if (missing.length === 0) {
    log("demo appointments exist");
    return;
  }
  const from = addDays(localToday(DEMO_TIMEZONE), 1);
  const free = await partner("GET", `/calendar/availability?from=${from}&to=${addDays(from, 13)}`);
  if (!free.ok) return skip("Reading availability", free);
  const days = free.body.availability.dates;
  for (const [i, appointment] of DEMO_APPOINTMENTS.entries()) {
    if (!missing.includes(appointment)) continue;
    const slots = days[i]?.slots ?? days[0]?.slots ?? [];
    const slot = slots.find((s) => s.time >= appointment.time) ?? slots[0];
    if (!slot) {
      notes.push(`No free slot for the demo appointment "${appointment.title}" in the next two weeks.`);
      continue;
    }
    const booked = await partner("POST", "/calendar/bookings", {
      start_at: slot.start_at,
      ...appointment.contact,
      title: appointment.title,
      booking_widget_uuid: widget.booking_widget_uuid,
    });
    if (booked.status !== 201) {
      skip(`Booking "${appointment.title}"`, booked);
      continue;
    }
    log(`booked "${appointment.title}" on ${slot.local_start}`);
  }
}

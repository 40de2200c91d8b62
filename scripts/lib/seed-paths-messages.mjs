// Demo paths, path events and messages for `npm run dev`, through the partner and operator
// APIs only. Idempotent: paths are found by name, events are added only while the published
// path has no views in the last 30 days, and messages only while the inbox is empty.
// Failures become notes: sample data is never worth failing the whole seed for.
import { errorMessage, requestJson } from "./http.mjs";

const STEPS_SELLER = [
  { key: "intro", type: "content", title: "Find out what your home is worth", description: "Takes under a minute." },
  { key: "timeline", type: "question", title: "When are you thinking of selling?", options: ["Within 3 months", "3-12 months", "Just curious"] },
  {
    key: "contact-form",
    type: "form",
    title: "Where should we send your valuation?",
    fields: [
      { key: "first_name", label: "First name", required: true },
      { key: "email", label: "Email", required: true },
      { key: "phone", label: "Phone" },
    ],
  },
  { key: "book", type: "booking", title: "Book a walkthrough with an agent" },
];

const STEPS_BUYER = [
  { key: "budget", type: "question", title: "What is your budget?", options: ["Under $400k", "$400k-$800k", "Over $800k"] },
  { key: "book", type: "booking", title: "Book a buyer consultation" },
];

const SELLER = { name: "Seller valuation funnel", description: "Home valuation for sellers; published.", steps: STEPS_SELLER };
const BUYER = { name: "Buyer consultation path", description: "Draft: not live yet.", steps: STEPS_BUYER };

/** Demo events over the last two weeks: [type, step, count] per day. */
const DAILY_EVENTS = [
  ["view", "intro", 12],
  ["view", "timeline", 8],
  ["view", "contact-form", 5],
  ["lead", "contact-form", 2],
  ["booking", null, 1],
];

const isoDay = (offsetDays) => new Date(Date.now() - offsetDays * 86_400_000).toISOString().slice(0, 10);

class StepFailed extends Error {}

export async function seedPathsAndMessages({ baseUrl, adminToken, agencyUuid, token, log = () => {}, notes = [] }) {
  const partner = (method, path, body) => requestJson(baseUrl, method, `/api/v2${path}`, { token, body });
  const operator = (method, path, body) =>
    requestJson(baseUrl, method, `/admin/v1/agencies/${agencyUuid}${path}`, { token: adminToken, body });
  const must = (what, res, ...ok) => {
    if (!ok.includes(res.status)) throw new StepFailed(`${what} failed (HTTP ${res.status}): ${errorMessage(res)}`);
    return res;
  };
  const routeMissing = (res) => res.status === 404 && res.body?.error === "Route not found";

  try {
    // Paths: found by name among the non-archived ones.
    const listed = await partner("GET", "/paths?limit=100");
    if (routeMissing(listed)) {
      notes.push("Paths, path events and messages were not seeded: this build has no /api/v2/paths route yet.");
      return;
    }
    must("Listing paths", listed, 200);
    const byName = new Map(listed.body.paths.map((p) => [p.name, p]));
    const ensurePath = async (spec) => {
      if (byName.has(spec.name)) return byName.get(spec.name);
      const created = must(`Creating path "${spec.name}"`, await partner("POST", "/paths", spec), 201).body.path;
      log(`created path "${spec.name}" (${created.path_uuid})`);
      return created;
    };
    const seller = await ensurePath(SELLER);
    await ensurePath(BUYER);
    if (seller.published_version === null) {
      must(`Publishing "${SELLER.name}"`, await partner("POST", `/paths/${seller.path_uuid}/publish`), 200, 409);
      log(`published "${SELLER.name}"`);
    }

    // Path events: only while the last 30 days show no views, so re-running adds nothing.
    const range = `from=${isoDay(29)}&to=${isoDay(0)}&path_uuid=${seller.path_uuid}`;
    const report = must("Reading Path Analytics", await partner("GET", `/analytics/paths?${range}`), 200);
    if (report.body.report.totals.views === 0) {
      let count = 0;
      for (let day = 13; day >= 1; day--) {
        for (const [type, step, perDay] of DAILY_EVENTS) {
          // A little variation from day to day, the same on every run.
          const n = Math.max(0, perDay - ((day * 7 + perDay) % 3));
          for (let i = 0; i < n; i++) {
            const at = new Date(Date.now() - day * 86_400_000 + i * 60_000).toISOString();
            const body = { path_uuid: seller.path_uuid, type, at, ...(step ? { step } : {}) };
            must("Recording a path event", await operator("POST", "/path-events", body), 201);
            count += 1;
          }
        }
      }
      log(`recorded ${count} path events for "${SELLER.name}"`);
    }

    // Messages: only into an empty inbox.
    const inbox = must("Listing messages", await partner("GET", "/messages?limit=1"), 200);
    if (inbox.body.pagination.total === 0) {
      const contacts = must("Listing contacts", await partner("GET", "/contacts?limit=100"), 200).body.contacts;
      const withPhone = contacts.filter((c) => c.phone);
      const withoutPhone = contacts.find((c) => !c.phone);
      if (withPhone.length === 0) {
        notes.push("Sample messages were not seeded: no contact with a phone number.");
        return;
      }
      const [first, second = first] = withPhone;
      const inbound = (contact, body) =>
        operator("POST", "/messages", { contact_uuid: contact.contact_uuid, channel: "sms", direction: "inbound", body });
      must("Recording an inbound SMS", await inbound(first, "Hi! Is the 3-bed on Maple Street still available?"), 201);
      must(
        "Sending an SMS",
        await partner("POST", "/messages", { contact_uuid: first.contact_uuid, channel: "sms", body: "It is! Would Saturday at 10am work for a viewing?" }),
        201,
      );
      must("Recording an inbound SMS", await inbound(first, "Saturday works, see you then."), 201);
      must("Recording an inbound SMS", await inbound(second, "Can you send me the valuation report again?"), 201);
      if (withoutPhone) {
        must(
          "Adding a note",
          await partner("POST", "/messages", { contact_uuid: withoutPhone.contact_uuid, channel: "note", body: "Prefers email; no phone on file." }),
          201,
        );
      }
      log("created sample messages (3 inbound unread, 1 SMS sent, 1 note)");
    }
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    notes.push(`Paths and messages sample data is incomplete: ${error.message}`);
  }
}

// Idempotent demo data for `npm run dev`, created only through the operator and partner
// APIs (never by writing to D1), so the seed exercises the same code partners do.
// Each record is looked up first and a 409 counts as "already there", so re-running
// adds nothing.
import { errorMessage, requestJson } from "./http.mjs";
import { seedCalendar } from "./seed-calendar.mjs";
import { DEMO_OWNER_EMAIL, seedDashboardLink } from "./seed-dashboard.mjs";
import { seedPathsAndMessages } from "./seed-paths-messages.mjs";
import { seedOrdersAndUsers } from "./seed-orders-users.mjs";
import { seedVoice } from "./seed-voice.mjs";

export const DEMO_AGENCY = { name: "Demo Agency", timezone: "America/New_York", shard: "DB" };
/** A second, smaller agency on the other local shard (fields, contacts and a key), so the demo spans two. */
export const DEMO_EU_AGENCY = { name: "Demo Agency EU", timezone: "Europe/Berlin", shard: "DB_EU" };
export const DEMO_KEY_NAME = "Demo key";

/**
 * The local shards (wrangler.toml's D1 bindings) and the regions the demo registers them with;
 * in production each is registered with the location it was created in
 * (docs/operations.md, Scaling).
 */
export const LOCAL_SHARDS = [
  { name: "DB", region: "wnam" },
  { name: "DB_EU", region: "eu" },
];

const MEMBERS = [
  { name: "Olivia Owner", email: DEMO_OWNER_EMAIL, role: "owner" },
  { name: "Sam Agent", email: "sam@demo-agency.example", role: "agent" },
];

const FIELDS = [
  { key: "budget", label: "Budget (USD)", type: "number" },
  { key: "move_in_date", label: "Move-in date", type: "date" },
  { key: "buyer_type", label: "Buyer type", type: "select", options: ["first_time", "investor", "upsizing", "downsizing"] },
  { key: "pre_approved", label: "Mortgage pre-approved", type: "boolean" },
];

const CONTACTS = [
  {
    first_name: "Ava",
    last_name: "Martinez",
    email: "ava.martinez@example.com",
    phone: "+12125550101",
    tags: ["buyer", "hot"],
    source: "website",
    custom_fields: { budget: 650000, move_in_date: "2027-03-01", buyer_type: "first_time", pre_approved: true },
  },
  {
    first_name: "Liam",
    last_name: "Chen",
    email: "liam.chen@example.com",
    phone: "+13055550102",
    tags: ["buyer"],
    source: "zillow",
    custom_fields: { budget: 420000, buyer_type: "investor", pre_approved: false },
  },
  {
    first_name: "Sofia",
    last_name: "Patel",
    email: "sofia.patel@example.com",
    tags: ["seller"],
    source: "referral",
    custom_fields: { move_in_date: "2027-06-15", buyer_type: "downsizing" },
  },
  {
    first_name: "Noah",
    last_name: "Johnson",
    phone: "+14155550104",
    tags: ["buyer", "nurture"],
    source: "facebook",
    custom_fields: { budget: 310000, buyer_type: "first_time" },
  },
  {
    first_name: "Emma",
    last_name: "Williams",
    email: "emma.williams@example.com",
    phone: "+12025550105",
    tags: ["seller", "hot"],
    source: "website",
    custom_fields: { budget: 1200000, buyer_type: "upsizing", pre_approved: true },
  },
  {
    first_name: "Mateo",
    last_name: "Garcia",
    email: "mateo.garcia@example.com",
    tags: ["renter"],
    source: "open-house",
    custom_fields: { move_in_date: "2027-01-10" },
  },
  {
    first_name: "Chloe",
    last_name: "Nguyen",
    email: "chloe.nguyen@example.com",
    phone: "+16175550107",
    tags: ["buyer", "investor"],
    source: "referral",
    custom_fields: { budget: 875000, buyer_type: "investor", pre_approved: true },
  },
  {
    first_name: "Ethan",
    last_name: "Brown",
    email: "ethan.brown@example.com",
    tags: [],
    source: "zillow",
  },
];

class SeedError extends Error {}

const fail = (what, res) => new SeedError(`${what} failed (HTTP ${res.status}): ${errorMessage(res)}`);

/** True when the route does not exist in this build (router 404, not a record 404). */
const routeMissing = (res) => res.status === 404 && res.body?.error === "Route not found";

/**
 * Seeds the demo agency and returns what the banner prints. `log` receives one line per
 * step; `notes` collects steps that were skipped.
 */
export async function seed({ baseUrl, adminToken, log = () => {} }) {
  const adminCall = (method, path, body) => requestJson(baseUrl, method, `/admin/v1${path}`, { token: adminToken, body });
  const notes = [];

  // Shards: registered (again) with their regions, open for new agencies.
  for (const shard of LOCAL_SHARDS) {
    const res = await adminCall("PUT", `/shards/${shard.name}`, { region: shard.region, open: true });
    if (!res.ok) throw fail(`Registering shard ${shard.name}`, res);
  }
  log(`shards ${LOCAL_SHARDS.map((s) => `${s.name} (${s.region})`).join(", ")} registered`);

  const agency = await findOrCreateAgency(adminCall, DEMO_AGENCY, log);
  const agencyPath = `/agencies/${agency.agency_uuid}`;

  // Team members: no operator list endpoint, so the email's 409 is the existence check.
  for (const member of MEMBERS) {
    const res = await adminCall("POST", `${agencyPath}/members`, member);
    if (res.status === 201) log(`created member ${member.email} (${member.role})`);
    else if (res.status !== 409) throw fail(`Creating member ${member.email}`, res);
  }

  const key = await demoKey(adminCall, agency, log);

  // From here on a failure only loses sample data: the key's fresh secrets must still be shown.
  try {
    await seedSampleData({ baseUrl, token: key.accessToken, log, notes });
  } catch (error) {
    if (!(error instanceof SeedError)) throw error;
    notes.push(`Sample data is incomplete: ${error.message}`);
  }
  await seedPathsAndMessages({ baseUrl, adminToken, agencyUuid: agency.agency_uuid, token: key.accessToken, log, notes });
  await seedOrdersAndUsers({ baseUrl, adminToken, agencyUuid: agency.agency_uuid, token: key.accessToken, log, notes });
  await seedCalendar({ baseUrl, adminToken, agencyUuid: agency.agency_uuid, token: key.accessToken, log, notes });
  await seedVoice({ baseUrl, adminToken, agencyUuid: agency.agency_uuid, token: key.accessToken, log, notes });
  const dashboard = await seedDashboardLink({ baseUrl, adminToken, token: key.accessToken, log, notes });

  // The second agency, on the other shard.
  const euAgency = await findOrCreateAgency(adminCall, DEMO_EU_AGENCY, log);
  const euKey = await demoKey(adminCall, euAgency, log);
  try {
    await seedSampleData({ baseUrl, token: euKey.accessToken, log, notes });
  } catch (error) {
    if (!(error instanceof SeedError)) throw error;
    notes.push(`Sample data of ${DEMO_EU_AGENCY.name} is incomplete: ${error.message}`);
  }
  return { agency, key, dashboard, notes, others: [{ agency: euAgency, key: euKey }] };
}

/** The agency of that name, created on its shard when missing. */
async function findOrCreateAgency(adminCall, demo, log) {
  const listed = await adminCall("GET", "/agencies");
  if (!listed.ok) throw fail("Listing agencies", listed);
  const found = listed.body.agencies.find((a) => a.name === demo.name);
  if (found) {
    log(`agency "${found.name}" exists (${found.agency_uuid}, shard ${found.shard})`);
    return found;
  }
  const created = await adminCall("POST", "/agencies", demo);
  if (!created.ok) throw fail(`Creating the agency "${demo.name}"`, created);
  const agency = created.body.agency;
  log(`created agency "${agency.name}" (${agency.agency_uuid}) on shard ${agency.shard} (${agency.region})`);
  return agency;
}

/** The agency's demo `*` key: reused, with its secrets rotated so fresh ones can be printed, or created. */
async function demoKey(adminCall, agency, log) {
  const agencyPath = `/agencies/${agency.agency_uuid}`;
  const keys = await adminCall("GET", `${agencyPath}/keys`);
  if (!keys.ok) throw fail("Listing keys", keys);
  const existing = keys.body.keys.find((k) => k.name === DEMO_KEY_NAME && k.kind === "standard" && !k.revoked_at);
  if (existing) {
    const rotated = await adminCall("POST", `/keys/${existing.key_uuid}/rotate-secrets`);
    if (!rotated.ok) throw fail("Rotating the demo key's secrets", rotated);
    log(`rotated the secrets of "${DEMO_KEY_NAME}" of ${agency.name} (${existing.key_uuid})`);
    return { ...existing, expires_at: rotated.body.expires_at, accessToken: rotated.body.access_token, rotateKey: rotated.body.rotate_key };
  }
  const created = await adminCall("POST", `${agencyPath}/keys`, { name: DEMO_KEY_NAME, scopes: ["*"] });
  if (!created.ok) throw fail("Creating the demo key", created);
  log(`created key "${DEMO_KEY_NAME}" of ${agency.name} (${created.body.key.key_uuid})`);
  return { ...created.body.key, accessToken: created.body.access_token, rotateKey: created.body.rotate_key };
}

async function seedSampleData({ baseUrl, token, log, notes }) {
  const partner = (method, path, body) => requestJson(baseUrl, method, `/api/v2${path}`, { token, body });

  // Custom fields
  const liveFields = new Set();
  const fieldList = await partner("GET", "/fields?limit=100");
  if (routeMissing(fieldList)) {
    notes.push("Custom fields and sample contacts were not seeded: this build has no /api/v2/fields route yet.");
    return;
  }
  if (!fieldList.ok) throw fail("Listing custom fields", fieldList);
  for (const field of fieldList.body.fields ?? []) if (!field.archived_at) liveFields.add(field.key);
  for (const field of FIELDS) {
    if (liveFields.has(field.key)) continue;
    const res = await partner("POST", "/fields", field);
    if (res.status === 201) log(`created field ${field.key} (${field.type})`);
    else if (res.status !== 409) throw fail(`Creating field ${field.key}`, res);
    liveFields.add(field.key);
  }

  // Contacts: skip those already listed (by email, else by name); a 409 (same email or phone) also means "there".
  const contactList = await partner("GET", "/contacts?limit=100");
  if (routeMissing(contactList)) {
    notes.push("Sample contacts were not seeded: this build has no /api/v2/contacts route yet.");
    return;
  }
  if (!contactList.ok) throw fail("Listing contacts", contactList);
  const identity = (c) => (c.email ? `email:${c.email.toLowerCase()}` : `name:${c.first_name} ${c.last_name}`);
  const existing = new Set((contactList.body.contacts ?? []).map(identity));
  let created = 0;
  for (const contact of CONTACTS) {
    if (existing.has(identity(contact))) continue;
    const body = { ...contact };
    if (body.custom_fields) {
      body.custom_fields = Object.fromEntries(Object.entries(body.custom_fields).filter(([k]) => liveFields.has(k)));
    }
    const res = await partner("POST", "/contacts", body);
    if (res.status === 201) created += 1;
    else if (res.status !== 409) throw fail(`Creating contact ${contact.first_name} ${contact.last_name}`, res);
  }
  log(created > 0 ? `created ${created} sample contacts` : "sample contacts exist");
}

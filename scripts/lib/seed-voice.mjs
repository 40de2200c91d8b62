// Demo Voice AI data for `npm run dev`: one agent with an outbound number, and wallet funds.
// Idempotent: the agent is looked up by name first (a 409 on its number also means "there"),
// and the wallet is topped up only when it runs low, so re-running adds nothing.
// Failures become notes, never a crash.
import { errorMessage, requestJson } from "./http.mjs";

export const DEMO_VOICE_AGENT = { name: "Ava (demo voice agent)", phone_numbers: ["+12125550100"] };
/** Top the wallet up to $50 whenever it holds less than $10. */
const TOP_UP_BELOW_CENTS = 1_000;
const TOP_UP_TO_CENTS = 5_000;

const routeMissing = (res) => res.status === 404 && res.body?.error === "Route not found";

export async function seedVoice({ baseUrl, adminToken, token, agencyUuid, log = () => {}, notes = [] }) {
  const adminCall = (method, path, body) => requestJson(baseUrl, method, `/admin/v1${path}`, { token: adminToken, body });
  const partner = (method, path, body) => requestJson(baseUrl, method, `/api/v2${path}`, { token, body });
  const problem = (what, res) => notes.push(`${what} failed (HTTP ${res.status}): ${errorMessage(res)}`);

  const agents = await partner("GET", "/voice-ai/agents?limit=100");
  if (routeMissing(agents)) {
    notes.push("Voice AI was not seeded: this build has no /api/v2/voice-ai routes yet.");
    return;
  }
  if (!agents.ok) return problem("Listing voice agents", agents);
  const existing = (agents.body.agents ?? []).find((a) => a.name === DEMO_VOICE_AGENT.name);
  if (existing) {
    log(`voice agent "${existing.name}" exists (${existing.agent_uuid})`);
  } else {
    const created = await adminCall("POST", `/agencies/${agencyUuid}/voice-agents`, DEMO_VOICE_AGENT);
    if (created.status === 201) log(`created voice agent "${created.body.agent.name}" calling from ${DEMO_VOICE_AGENT.phone_numbers[0]}`);
    else if (created.status !== 409) return problem("Creating the demo voice agent", created);
  }

  const wallet = await partner("GET", "/voice-ai/wallet");
  if (!wallet.ok) return problem("Reading the Voice AI wallet", wallet);
  const balance = wallet.body.wallet.balance_cents;
  if (balance >= TOP_UP_BELOW_CENTS) {
    log(`voice wallet holds ${(balance / 100).toFixed(2)} ${wallet.body.wallet.currency}`);
    return;
  }
  const credited = await adminCall("POST", `/agencies/${agencyUuid}/wallet/credit`, {
    amount_cents: TOP_UP_TO_CENTS - balance,
    note: "Demo top-up (npm run dev)",
  });
  if (!credited.ok) return problem("Crediting the Voice AI wallet", credited);
  log(`voice wallet topped up to ${(credited.body.wallet.balance_cents / 100).toFixed(2)} ${credited.body.wallet.currency}`);
}

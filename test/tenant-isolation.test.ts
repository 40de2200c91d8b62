import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers/http";
import { createMember, createPathRecord, setupAgency } from "./helpers/factories";
import { book, freeStarts, nextWeekday, openBusinessHours } from "./helpers/calendar-factories";
import { createLeadOrder } from "./helpers/lead-order-factories";
import { createCall, createVoiceAgent, creditWallet } from "./helpers/voice-factories";

type Json = Record<string, any>;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Every table that holds agency records; a request of another agency must change none of their rows. */
const TABLES = [
  "contacts",
  "contact_tags",
  "fields",
  "appointments",
  "calendar_hours",
  "booking_widgets",
  "messages",
  "paths",
  "path_versions",
  "path_events",
  "lead_orders",
  "members",
  "invites",
  "voice_agents",
  "voice_phone_numbers",
  "voice_calls",
  "wallets",
  "wallet_ledger",
  "agency_settings",
  "record_counts",
];

async function snapshot(agencyUuid: string) {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    rows[table] = (await env.DB.prepare(`SELECT * FROM ${table} WHERE agency_id = ? ORDER BY rowid`).bind(agencyUuid).all()).results;
  }
  return rows;
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    current = doc.components?.schemas?.[current.$ref.replace("#/components/schemas/", "")];
  }
  return current;
}

const exampleBody = (doc: Json, op: Json): unknown => {
  const media = op.requestBody?.content?.["application/json"];
  return media ? (media.example ?? resolve(doc, media.schema)?.example ?? {}) : undefined;
};

/** One record of every kind that a path parameter can name, all in one agency. */
async function populate() {
  const owner = await setupAgency("Owner agency");
  const { agencyUuid, token } = owner;
  const contact = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", phone: "+14155550199" } });
  expect(contact.status).toBe(201);
  const contactUuid = contact.body.contact.contact_uuid as string;
  const field = await api("POST", "/fields", { token, body: { key: "budget", label: "Budget", type: "number" } });
  expect(field.status).toBe(201);
  const message = await api("POST", "/messages", { token, body: { contact_uuid: contactUuid, channel: "note", body: "Called back." } });
  expect(message.status, JSON.stringify(message.body)).toBe(201);
  await openBusinessHours(token);
  const [slot] = await freeStarts(token, nextWeekday(3));
  const appointment = await book(token, slot!);
  const agent = await createVoiceAgent(agencyUuid);
  await creditWallet(agencyUuid);
  const call = await createCall(token, { delay_seconds: 3600 });
  const ids: Record<string, string> = {
    contact_uuid: contactUuid,
    field_uuid: field.body.field.field_uuid,
    message_uuid: message.body.message.message_uuid,
    appointment_uuid: appointment.appointment_uuid,
    path_uuid: await createPathRecord(agencyUuid),
    order_uuid: (await createLeadOrder(agencyUuid)).order_uuid,
    call_uuid: call.call_uuid,
  };
  const member = await createMember(agencyUuid, { role: "agent" });
  // `agent_uuid` names a Voice AI agent under /voice-ai and a team member under /users.
  const idFor = (path: string, name: string) => (name === "agent_uuid" ? (path.startsWith("/voice-ai/") ? agent.agent_uuid : member) : ids[name]);
  return { owner, idFor };
}

describe("tenant isolation", () => {
  it("answers 404 to another agency's * key on every route with an identifier, and changes none of the owner's rows", async () => {
    const { owner, idFor } = await populate();
    const intruder = await setupAgency("Intruder agency");
    const doc = (await api("GET", "/openapi.json")).body as Json;
    const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && path.includes("{")).map((m) => ({ method: m.toUpperCase(), path, op: item[m] as Json })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(20);

    const before = await snapshot(owner.agencyUuid);
    for (const { method, path, op } of operations) {
      let url = path;
      for (const p of (op.parameters ?? []).filter((p: Json) => p.in === "path")) {
        const id = idFor(path, p.name);
        expect(id, `no fixture for {${p.name}} in ${method} ${path}: add one to populate()`).toBeTruthy();
        url = url.replace(`{${p.name}}`, id!);
      }
      const res = await api(method, url, { token: intruder.token, body: exampleBody(doc, op) });
      expectError(res, 404, undefined, "not_found");
    }
    expect(await snapshot(owner.agencyUuid)).toEqual(before);

    // The owner still sees every record.
    for (const { path, op } of operations.filter((o) => o.method === "GET")) {
      let url = path;
      for (const p of (op.parameters ?? []).filter((p: Json) => p.in === "path")) url = url.replace(`{${p.name}}`, idFor(path, p.name)!);
      expect((await api("GET", url, { token: owner.token })).status, `GET ${url}`).toBe(200);
    }
  });
});

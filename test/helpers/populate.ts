import { expect } from "vitest";
import { api } from "./http";
import { operationsOf, type Json } from "./openapi-doc";
import { createMember, createPathRecord, setupAgency, setupAgencyOn, type TestAgency } from "./factories";
import { book, freeStarts, nextWeekday, openBusinessHours } from "./calendar-factories";
import { createLeadOrder } from "./lead-order-factories";
import { createCall, createVoiceAgent, creditWallet } from "./voice-factories";

export interface Populated {
  owner: TestAgency;
  /** The record of each path parameter name (`agent_uuid` is the Voice AI agent; see `idFor`). */
  ids: Record<string, string>;
  voiceAgentUuid: string;
  memberUuid: string;
  /** The real record for `{name}` in `path`; undefined when populate() makes none of that kind. */
  idFor: (path: string, name: string) => string | undefined;
}

/** One record of every kind that a path parameter can name, all in one (new) agency, on `shard` when given. */
export async function populate(name = "Owner agency", shard?: string): Promise<Populated> {
  const owner = shard ? await setupAgencyOn(shard, name) : await setupAgency(name);
  const { agencyUuid, token } = owner;
  const contact = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", phone: "+14155550199" } });
  expect(contact.status, JSON.stringify(contact.body)).toBe(201);
  const contactUuid = contact.body.contact.contact_uuid as string;
  const field = await api("POST", "/fields", { token, body: { key: "budget", label: "Budget", type: "number" } });
  expect(field.status, JSON.stringify(field.body)).toBe(201);
  const message = await api("POST", "/messages", { token, body: { contact_uuid: contactUuid, channel: "note", body: "Called back." } });
  expect(message.status, JSON.stringify(message.body)).toBe(201);
  await openBusinessHours(token);
  const [slot] = await freeStarts(token, nextWeekday(3));
  expect(slot, "no free slot to book an appointment in").toBeTruthy();
  const appointment = await book(token, slot!);
  const agent = await createVoiceAgent(agencyUuid);
  await creditWallet(agencyUuid);
  const call = await createCall(token, { delay_seconds: 3600 });
  const events = await api("GET", "/events?type=contact.created", { token });
  expect(events.status, JSON.stringify(events.body)).toBe(200);
  const ids: Record<string, string> = {
    contact_uuid: contactUuid,
    field_uuid: field.body.field.field_uuid,
    message_uuid: message.body.message.message_uuid,
    appointment_uuid: appointment.appointment_uuid,
    path_uuid: await createPathRecord(agencyUuid),
    order_uuid: (await createLeadOrder(agencyUuid)).order_uuid,
    call_uuid: call.call_uuid,
    event_uuid: events.body.events[0]?.event_uuid,
  };
  const member = await createMember(agencyUuid, { role: "agent" });
  // Last, and disabled: no delivery may change the agency's rows while a test watches them.
  const endpoint = await api("POST", "/webhook-endpoints", { token, body: { url: "https://hooks.example.com/populate", events: ["*"] } });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  ids.webhook_endpoint_uuid = endpoint.body.webhook_endpoint.webhook_endpoint_uuid;
  const disabled = await api("PATCH", `/webhook-endpoints/${ids.webhook_endpoint_uuid}`, { token, body: { status: "disabled" } });
  expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
  for (const [key, id] of Object.entries(ids)) expect(id, `populate() made no ${key}`).toBeTruthy();
  // `agent_uuid` names a Voice AI agent under /voice-ai and a team member under /users.
  const idFor = (path: string, param: string) => (param === "agent_uuid" ? (path.startsWith("/voice-ai/") ? agent.agent_uuid : member) : ids[param]);
  return { owner, ids, voiceAgentUuid: agent.agent_uuid, memberUuid: member, idFor };
}

/** What the agency's key reads on every GET route of the document, with a real record for every path parameter. */
export async function readEverything(token: string, idFor: (path: string, name: string) => string | undefined) {
  const doc = (await api("GET", "/openapi.json")).body as Json;
  const read: Record<string, unknown> = {};
  for (const { path, op } of operationsOf(doc).filter((o) => o.method === "GET" && o.path !== "/openapi.json")) {
    let url = path;
    for (const p of (op.parameters ?? []).filter((p: Json) => p.in === "path")) url = url.replace(`{${p.name}}`, idFor(path, p.name)!);
    const res = await api("GET", url, { token });
    read[url] = { status: res.status, body: res.body };
  }
  read["/contacts?q=ada"] = (await api("GET", "/contacts?q=ada", { token })).body;
  return read;
}

/**
 * `count` contacts of the agency written straight into its shard, a thousand per statement (the
 * rows travel as one JSON value), as a large agency's would be: `Seeded <n>` by name, every
 * third one tagged `seeded`. The triggers keep the counters and the search index as the API would.
 */
export async function seedContacts(d1: D1Database, agencyUuid: string, count: number) {
  const contacts = d1.prepare(
    `INSERT INTO contacts (id, agency_id, first_name, last_name, email, phone, tags, custom_fields, created_at, updated_at)
     SELECT value ->> 0, ?1, 'Seeded', value ->> 1, value ->> 2, value ->> 3, value ->> 4, '{}', value ->> 5, value ->> 5 FROM json_each(?2)`,
  );
  const tags = d1.prepare("INSERT INTO contact_tags (contact_id, agency_id, tag) SELECT value, ?1, 'seeded' FROM json_each(?2)");
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const statements: D1PreparedStatement[] = [];
  for (let first = 0; first < count; first += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, count - first) }, (_, j) => {
      const i = first + j;
      const tagged = i % 3 === 0;
      return [crypto.randomUUID(), `${i}`, `seeded-${i}@example.com`, `+1415${String(2_000_000 + i).padStart(7, "0")}`, tagged ? '["seeded"]' : "[]", new Date(start + i * 1000).toISOString()];
    });
    statements.push(contacts.bind(agencyUuid, JSON.stringify(rows)), tags.bind(agencyUuid, JSON.stringify(rows.filter((r) => r[4] !== "[]").map((r) => r[0]))));
  }
  await d1.batch(statements);
}

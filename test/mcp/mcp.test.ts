import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env, exports } from "cloudflare:workers";
import { freezeAgency } from "@/db/agency-copy";
import type { Env } from "@/env";
import { invalidateKey } from "@/lib/auth/gate";
import { describe, expect, it } from "vitest";
import { messages } from "@/lib/errors";
import { addDays, nextWeekday, openBusinessHours } from "../helpers/calendar-factories";
import { createAgency, createKey, setupAgency } from "../helpers/factories";
import { admin, api, BASE, expectError, uniqueIp } from "../helpers/http";
import { shardDb, shardNameOf } from "../helpers/shards";
import { envWith, fetchWithEnv, setupVoiceAgency } from "../helpers/voice-factories";

const ALL_TOOLS = [
  "search_contacts",
  "get_contact",
  "upsert_contacts",
  "get_availability",
  "book_appointment",
  "list_appointments",
  "cancel_appointment",
  "list_voice_agents",
  "start_call",
  "get_call",
  "cancel_call",
  "get_wallet",
  "send_message",
  "list_events",
];

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, any>;
  _meta?: Record<string, unknown>;
}

/**
 * An agent's MCP client, connected to /mcp of the Worker under test with an API key (or
 * none). `statuses` records the HTTP status of every request the client sent.
 */
async function connect(
  token: string | null,
  headers: Record<string, string> = {},
  options: { modern?: boolean; send?: (request: Request) => Promise<Response>; url?: string } = {},
) {
  const statuses: number[] = [];
  // By default the client speaks the 2025 protocol (initialize, then requests); `modern`
  // pins the 2026-07-28 revision, negotiated with server/discover.
  const client = new Client(
    { name: "partner-agent", version: "1.0.0" },
    options.modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined,
  );
  const send = options.send ?? ((request: Request) => exports.default.fetch(request));
  const transport = new StreamableHTTPClientTransport(new URL(options.url ?? `${BASE}/mcp`), {
    fetch: async (url, init) => {
      const response = await send(new Request(url, init));
      statuses.push(response.status);
      return response;
    },
    requestInit: { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolAnswer;
  return { client, call, statuses };
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** The tool's error must be the API's own answer to the same request: message, code and status. */
async function expectSameError(answer: ToolAnswer, rest: { status: number; body: any }) {
  expect(answer.isError, JSON.stringify(answer)).toBe(true);
  expect(rest.status).toBeGreaterThanOrEqual(400);
  expect(answer.structuredContent).toMatchObject({ success: false, error: rest.body.error, code: rest.body.code, status: rest.status });
  expect(answer.content[0]!.text).toBe(`${rest.body.error} (HTTP ${rest.status}, code ${rest.body.code})`);
}

const MCP_ACCEPT = "application/json, text/event-stream";

/** A raw POST to /mcp, as a hand-rolled client (or an attacker) sends it: any body, any headers. */
function postMcp(body: unknown, headers: Record<string, string> = {}, send = (request: Request) => exports.default.fetch(request)) {
  return send(
    new Request(`${BASE}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT, ...headers },
      body: JSON.stringify(body),
    }),
  );
}

/** The JSON-RPC messages of an answer: its JSON body, one message or a batch's array. */
const rpcMessages = (text: string): any[] => [JSON.parse(text)].flat();

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

/** The headers every answer of /mcp carries: its request id, and where the caller stands against the endpoint's limit. */
function expectEndpointHeaders(res: Response, limit: number, label: string) {
  expect(res.headers.get("X-Request-Id"), label).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(res.headers.get("RateLimit-Limit"), label).toBe(String(limit));
  expect(res.headers.get("RateLimit-Remaining"), label).toMatch(/^\d+$/);
  expect(res.headers.get("RateLimit-Reset"), label).toMatch(/^\d+$/);
  expect(res.headers.get("RateLimit-Policy"), label).toBe(`${limit};w=60`);
}

let phones = 0;
const nextPhone = () => `+1415555${String(1000 + (++phones % 9000)).slice(-4)}`;

describe("MCP server", () => {
  it("lists the tools a key's scopes allow, with hints and the routes' documented input schemas", async () => {
    const agencyUuid = await createAgency();
    const everything = await createKey(agencyUuid, { scopes: ["*"] });
    const contactsOnly = await createKey(agencyUuid, { scopes: ["contacts"] });
    const calendarAndVoice = await createKey(agencyUuid, { scopes: ["calendar", "voice-ai"] });

    const all = await connect(everything.token);
    expect(await toolNames(all.client)).toEqual(ALL_TOOLS);
    expect(await toolNames((await connect(contactsOnly.token)).client)).toEqual(["search_contacts", "get_contact", "upsert_contacts"]);
    expect(await toolNames((await connect(calendarAndVoice.token)).client)).toEqual([
      "get_availability",
      "book_appointment",
      "list_voice_agents",
      "start_call",
      "get_call",
      "cancel_call",
      "get_wallet",
    ]);

    const { tools } = await all.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search_contacts!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.cancel_call!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.start_call!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(byName.search_contacts!.description).toContain("Calls `GET /api/v2/contacts`");
    // The route's own field documentation, and a query string's integer shown as one.
    const search = byName.search_contacts!.inputSchema as { properties: Record<string, any> };
    expect(search.properties.q.description).toMatch(/^Search, up to 100 characters/);
    expect(search.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    const booking = byName.book_appointment!.inputSchema as { properties: Record<string, any>; required: string[] };
    expect(booking.required).toContain("start_at");
    expect(booking.properties.idempotency_key).toMatchObject({ type: "string", maxLength: 255 });
    const upsert = byName.upsert_contacts!.inputSchema as { properties: Record<string, any> };
    expect(upsert.properties.contacts.items.properties.match_on.enum).toEqual(["external_id", "email", "phone"]);
  });

  it("answers every tool for good input and refuses bad input with the API's own message", async () => {
    const agency = await setupVoiceAgency();
    const { token } = agency;
    await openBusinessHours(token);
    const other = await setupAgency();
    const theirs = (await api("POST", "/contacts", { token: other.token, body: { first_name: "Not", last_name: "Yours" } })).body.contact;
    const { call } = await connect(token);
    const day = nextWeekday(3);

    const upserted = await call("upsert_contacts", { contacts: [{ first_name: "Ada", last_name: "Lovelace", external_id: "crm-1", phone: nextPhone() }] });
    expect(upserted.isError).toBeUndefined();
    expect(upserted.structuredContent!.results[0]).toMatchObject({ status: "created" });
    const contactUuid = upserted.structuredContent!.results[0].contact_uuid as string;
    await expectSameError(await call("upsert_contacts", { contacts: [] }), await api("POST", "/contacts/bulk", { token, body: { contacts: [] } }));

    const found = await call("search_contacts", { q: "lovelace", limit: 5 });
    expect(found.structuredContent!.contacts.map((c: any) => c.contact_uuid)).toEqual([contactUuid]);
    expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent);
    await expectSameError(await call("search_contacts", { limit: 0 }), await api("GET", "/contacts?limit=0", { token }));

    expect((await call("get_contact", { contact_uuid: contactUuid })).structuredContent!.contact).toMatchObject({ external_id: "crm-1" });
    await expectSameError(await call("get_contact", { contact_uuid: "nope" }), await api("GET", "/contacts/nope", { token }));
    // A dot segment stays the route's parameter: it never walks the path to another route.
    for (const dots of [".", ".."]) {
      expect(await call("get_contact", { contact_uuid: dots })).toMatchObject({
        isError: true,
        structuredContent: { status: 400, code: "validation_error", error: "contact_uuid must be a UUID" },
      });
    }
    // Another agency's contact does not exist for this key.
    await expectSameError(
      await call("get_contact", { contact_uuid: theirs.contact_uuid }),
      await api("GET", `/contacts/${theirs.contact_uuid}`, { token }),
    );

    const free = await call("get_availability", { from: day, to: day });
    const startAt = free.structuredContent!.availability.dates[0].slots[0].start_at as string;
    await expectSameError(await call("get_availability", { from: day, to: addDays(day, 200) }), await api("GET", `/calendar/availability?from=${day}&to=${addDays(day, 200)}`, { token }));

    const booked = await call("book_appointment", { start_at: startAt, contact_uuid: contactUuid, title: "Viewing" });
    expect(booked.structuredContent!.appointment).toMatchObject({ start_at: startAt, contact_uuid: contactUuid, status: "booked" });
    const appointmentUuid = booked.structuredContent!.appointment.appointment_uuid as string;
    await expectSameError(
      await call("book_appointment", { start_at: "tomorrow at noon", contact_uuid: contactUuid }),
      await api("POST", "/calendar/bookings", { token, body: { start_at: "tomorrow at noon", contact_uuid: contactUuid } }),
    );

    const listed = await call("list_appointments", { contact_uuid: contactUuid });
    expect(listed.structuredContent!.appointments.map((a: any) => a.appointment_uuid)).toEqual([appointmentUuid]);
    await expectSameError(await call("list_appointments", { status: "lost" }), await api("GET", "/appointments?status=lost", { token }));

    expect((await call("cancel_appointment", { appointment_uuid: appointmentUuid })).structuredContent!.appointment.status).toBe("canceled");
    const missing = crypto.randomUUID();
    await expectSameError(await call("cancel_appointment", { appointment_uuid: missing }), await api("POST", `/appointments/${missing}/cancel`, { token }));

    const agents = await call("list_voice_agents");
    expect(agents.structuredContent!.agents.map((a: any) => a.agent_uuid)).toEqual([agency.agent.agent_uuid]);
    await expectSameError(await call("list_voice_agents", { limit: 1000 }), await api("GET", "/voice-ai/agents?limit=1000", { token }));

    const started = await call("start_call", { phone: "+14155550123", delay_seconds: 3600 });
    expect(started.structuredContent!.call).toMatchObject({ status: "queued", phone: "+14155550123" });
    const callUuid = started.structuredContent!.call.call_uuid as string;
    await expectSameError(await call("start_call", { phone: "12" }), await api("POST", "/voice-ai/calls", { token, body: { phone: "12" } }));

    expect((await call("get_call", { call_uuid: callUuid })).structuredContent!.call.call_uuid).toBe(callUuid);
    await expectSameError(await call("get_call", { call_uuid: missing }), await api("GET", `/voice-ai/calls/${missing}`, { token }));

    expect((await call("cancel_call", { call_uuid: callUuid })).structuredContent!.call.status).toBe("canceled");
    await expectSameError(await call("cancel_call", { call_uuid: missing }), await api("POST", `/voice-ai/calls/${missing}/cancel`, { token }));

    expect((await call("get_wallet")).structuredContent!.wallet).toMatchObject({ balance_cents: expect.any(Number), currency: "USD" });
    // The wallet takes no input: anything given is refused, as an unknown body field would be.
    const extra = await call("get_wallet", { agency: "mine" });
    expect(extra).toMatchObject({ isError: true, structuredContent: { code: "validation_error", error: "Unknown argument: agency" } });

    const sent = await call("send_message", { contact_uuid: contactUuid, channel: "sms", body: "See you at 10!" });
    expect(sent.structuredContent!.message).toMatchObject({ channel: "sms", direction: "outbound", body: "See you at 10!" });
    await expectSameError(
      await call("send_message", { contact_uuid: contactUuid, channel: "fax", body: "Hi" }),
      await api("POST", "/messages", { token, body: { contact_uuid: contactUuid, channel: "fax", body: "Hi" } }),
    );

    const events = await call("list_events", { type: "appointment.canceled" });
    expect(events.structuredContent!.events.map((e: any) => e.data.object.appointment_uuid)).toEqual([appointmentUuid]);
    await expectSameError(await call("list_events", { type: "contact.exploded" }), await api("GET", "/events?type=contact.exploded", { token }));
  });

  it("refuses send_message to an opted-out number with the route's 409 sms_opt_out, sending nothing", async () => {
    const { token } = await setupAgency();
    const created = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", phone: "+14155550188" } });
    const contactUuid = created.body.contact.contact_uuid;
    expect((await api("PATCH", `/contacts/${contactUuid}`, { token, body: { sms_opt_out: true } })).status).toBe(200);
    const { call } = await connect(token);
    const refused = await call("send_message", { contact_uuid: contactUuid, channel: "sms", body: "Hello" });
    expect(refused.structuredContent).toMatchObject({ code: "sms_opt_out", status: 409 });
    await expectSameError(refused, await api("POST", "/messages", { token, body: { contact_uuid: contactUuid, channel: "sms", body: "Hello" } }));
    expect((await api("GET", "/messages", { token })).body.messages).toEqual([]);
  });

  it("books an appointment the way an agent would: free slots, then the booking", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const { call } = await connect(token);
    const day = nextWeekday(2);
    const slots = (await call("get_availability", { from: day, to: day })).structuredContent!.availability.dates[0].slots;
    const booked = await call("book_appointment", { start_at: slots[2].start_at, first_name: "Grace", last_name: "Hopper", email: "grace@example.com" });
    expect(booked.isError).toBeUndefined();

    const listed = await api("GET", `/appointments?from=${day}&to=${day}`, { token });
    expect(listed.body.appointments).toEqual([expect.objectContaining({ appointment_uuid: booked.structuredContent!.appointment.appointment_uuid, start_at: slots[2].start_at })]);
    const after = (await call("get_availability", { from: day, to: day })).structuredContent!.availability.dates[0].slots;
    expect(after.map((s: any) => s.start_at)).not.toContain(slots[2].start_at);
  });

  it("makes writes safe to repeat: the same call is answered once, a new idempotency_key acts again", async () => {
    const { token } = await setupAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", phone: nextPhone() } })).body.contact;
    const { call } = await connect(token);
    const args = { contact_uuid: contact.contact_uuid, channel: "note", body: "Called back, interested." };

    const [first, again] = await Promise.all([call("send_message", args), call("send_message", { body: args.body, channel: "note", contact_uuid: args.contact_uuid })]);
    const outcomes = [first, again].map((a) => (a.isError ? a.structuredContent!.code : a.structuredContent!.message.message_uuid));
    // Sent at once, the second either waits for the first's answer or hears it is still running.
    expect(outcomes.filter((o) => o !== "idempotency_in_progress")).toSatisfy((uuids: string[]) => uuids.length >= 1 && new Set(uuids).size === 1);
    const repeat = await call("send_message", args);
    expect(repeat.structuredContent!.message.message_uuid).toBe(first.isError ? again.structuredContent!.message.message_uuid : first.structuredContent!.message.message_uuid);
    const notes = async () => (await api("GET", `/messages?contact_uuid=${contact.contact_uuid}`, { token })).body.messages.length;
    expect(await notes()).toBe(1);

    expect(repeat.content[1]!.text).toMatch(/^Replayed: /);
    expect(repeat._meta).toEqual({ "partner-api/replayed": true });

    const onPurpose = await call("send_message", { ...args, idempotency_key: "second-note" });
    expect(onPurpose.structuredContent!.message.message_uuid).not.toBe(repeat.structuredContent!.message.message_uuid);
    expect(await notes()).toBe(2);

    // A refusal is kept too, and says so when repeated: an agent that cured its cause needs a new key.
    const noPhone = (await api("POST", "/contacts", { token, body: { first_name: "No", last_name: "Phone" } })).body.contact;
    const refusedArgs = { contact_uuid: noPhone.contact_uuid, channel: "sms", body: "Hello" };
    const refused = await call("send_message", refusedArgs);
    expect(refused.isError).toBe(true);
    expect(refused._meta).toBeUndefined();
    const refusedAgain = await call("send_message", refusedArgs);
    expect(refusedAgain).toMatchObject({ isError: true, structuredContent: refused.structuredContent, _meta: { "partner-api/replayed": true } });
    expect(refusedAgain.content[1]!.text).toMatch(/^Replayed: /);
  });

  it("replays a repeated upsert whose items list their fields in another order", async () => {
    const { token } = await setupAgency();
    const { call } = await connect(token);
    const first = await call("upsert_contacts", { contacts: [{ first_name: "Ada", last_name: "Lovelace", external_id: "crm-7", tags: ["vip"] }] });
    expect(first.structuredContent!.results[0]).toMatchObject({ status: "created" });
    const reordered = await call("upsert_contacts", { contacts: [{ tags: ["vip"], external_id: "crm-7", last_name: "Lovelace", first_name: "Ada" }] });
    expect(reordered.isError).toBeUndefined();
    expect(reordered.structuredContent).toEqual(first.structuredContent);
    expect(reordered._meta).toEqual({ "partner-api/replayed": true });
  });

  it("keeps listing tools and reading while the agency moves; a write tool gets the API's 503", async () => {
    const { agencyUuid, token, keyUuid } = await setupAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Moving", last_name: "Day" } })).body.contact;
    const from = await shardNameOf(agencyUuid);
    // A move under way: the directory names its target, the old copy is fenced, the key's gate told.
    await env.DB.prepare("UPDATE agency_directory SET moving_to = ?, move_heartbeat_at = ? WHERE agency_id = ?")
      .bind(from === "DB" ? "DB_EU" : "DB", new Date().toISOString(), agencyUuid)
      .run();
    await freezeAgency(shardDb(from), agencyUuid, "moving", new Date().toISOString());
    await invalidateKey(env as unknown as Env, keyUuid);

    const { client, call } = await connect(token);
    expect(await toolNames(client)).toEqual(ALL_TOOLS);
    expect((await call("get_contact", { contact_uuid: contact.contact_uuid })).structuredContent!.contact.last_name).toBe("Day");
    const refused = await call("send_message", { contact_uuid: contact.contact_uuid, channel: "note", body: "Moved?" });
    const rest = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, channel: "note", body: "Moved?" } });
    expect(rest.status).toBe(503);
    expect(refused).toMatchObject({ isError: true, structuredContent: { status: 503, code: "agency_moving", error: rest.body.error, retry_after_seconds: 10 } });
  });

  it("needs an API key: 401 without one, and a revoked key is refused on its next call", async () => {
    const noKey = await exports.default.fetch(`${BASE}/mcp`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ success: false, error: messages.invalidToken, code: "invalid_token" });
    await expect(connect(null)).rejects.toThrow();

    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["contacts"] });
    const { call, statuses } = await connect(token);
    expect((await call("search_contacts")).isError).toBeUndefined();
    expect((await admin("POST", `/keys/${keyUuid}/revoke`)).status).toBe(200);
    await expect(call("search_contacts")).rejects.toThrow();
    expect(statuses.at(-1)).toBe(401);
  });

  it("counts each tool call against its route's limit, and every request against the endpoint's", async () => {
    const agencyUuid = await createAgency();
    // A tenth of every limit: GET /voice-ai/wallet 3 a minute, the endpoint 12.
    const { token } = await createKey(agencyUuid, { scopes: ["voice-ai"], rate_limit_multiplier: 0.1 });
    const { call, statuses } = await connect(token);
    const answers = await Promise.all(Array.from({ length: 5 }, () => call("get_wallet")));
    expect(answers.filter((a) => !a.isError)).toHaveLength(3);
    const limited = answers.filter((a) => a.isError);
    expect(limited).toHaveLength(2);
    for (const answer of limited) {
      expect(answer.structuredContent).toMatchObject({ code: "rate_limited", error: messages.rateLimited, status: 429, retry_after_seconds: expect.any(Number) });
      expect(answer.content[0]!.text).toMatch(/^Rate limit exceeded\. .* \(HTTP 429, code rate_limited, retry after \d+ s\)$/);
    }
    // The same key through the REST API shares the route's count.
    expectError(await api("GET", "/voice-ai/wallet", { token }), 429, messages.rateLimited, "rate_limited");

    // The endpoint admits 12 requests of the key, whatever they carry (connecting takes a few,
    // its refused stream GET among them): the 13th is 429, thrown by the client.
    let refused: unknown;
    for (let i = 0; i < 12 && refused === undefined; i++) refused = await call("list_voice_agents").then(() => undefined, (error: unknown) => error);
    expect(String(refused)).toContain(messages.rateLimited);
    expect(statuses.indexOf(429)).toBe(12);
  });

  it("lets a browser page call only from the public host: never from the request's own Host, which DNS rebinding controls", async () => {
    const { token } = await setupAgency();
    const rawList = (origin: string, host = BASE) =>
      exports.default.fetch(`${host}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", Origin: origin },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await rawList("https://evil.example.com")).status).toBe(403);
    // A rebinding page: its Origin and the Host it reached agree. Still refused.
    expect((await rawList("https://evil.example.com", "https://evil.example.com")).status).toBe(403);
    // Without PUBLIC_BASE_URL no page is trusted, not even one of the Worker's own host.
    expect((await rawList(BASE)).status).toBe(403);
    await expect(connect(token, { Origin: BASE })).rejects.toThrow();

    // With PUBLIC_BASE_URL, pages of that host may call; others still may not.
    const publicEnv = envWith({ PUBLIC_BASE_URL: BASE });
    const viaPublicEnv = (request: Request) => fetchWithEnv(publicEnv, request);
    const own = await connect(token, { Origin: BASE }, { send: viaPublicEnv });
    expect(await toolNames(own.client)).toEqual(ALL_TOOLS);
    await expect(connect(token, { Origin: "https://evil.example.com" }, { send: viaPublicEnv, url: "https://evil.example.com/mcp" })).rejects.toThrow();
  });

  it("serves the 2026-07-28 protocol too: the same tools and answers", async () => {
    const { token } = await setupAgency();
    await api("POST", "/contacts", { token, body: { first_name: "Modern", last_name: "Era" } });
    const { client, call, statuses } = await connect(token, {}, { modern: true });
    expect(await toolNames(client)).toEqual(ALL_TOOLS);
    const found = await call("search_contacts", { q: "era" });
    expect(found.structuredContent!.contacts.map((c: any) => c.first_name)).toEqual(["Modern"]);
    await expectSameError(await call("search_contacts", { limit: 0 }), await api("GET", "/contacts?limit=0", { token }));
    // No session and no stream: each request is answered on its own.
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it("is stateless: a bare tools/call is answered without a session opened first", async () => {
    const { token } = await setupAgency();
    await api("POST", "/contacts", { token, body: { first_name: "Bare", last_name: "Call" } });
    const res = await exports.default.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "search_contacts", arguments: { q: "bare" } } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    // The 2025 protocol's answer to a client accepting both: the JSON-RPC response, as JSON.
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = (await res.json()) as { id: number; result: ToolAnswer };
    expect(body.id).toBe(7);
    expect(body.result.structuredContent!.contacts.map((c: any) => c.last_name)).toEqual(["Call"]);
  });

  it("does not offer, or carry out, a tool outside the key's scopes", async () => {
    const agencyUuid = await createAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"] });
    const { call } = await connect(token);
    const refused = await call("get_wallet").catch((error: unknown) => error);
    expect(String((refused as ToolAnswer).content?.[0]?.text ?? refused)).toMatch(/get_wallet/);
    expectError(await api("GET", "/voice-ai/wallet", { token }), 403, messages.missingScope("voice-ai"), "insufficient_scope");
  });
  it("refuses 5,000 unknown arguments, or one 100,000-character name, in an answer under 4 KB naming at most 20", { timeout: 10_000 }, async () => {
    const { token } = await setupAgency();
    const auth = { Authorization: `Bearer ${token}` };
    const answerOf = async (args: Record<string, unknown>) => {
      const res = await postMcp(toolCall(1, "search_contacts", args), auth);
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.byteLength).toBeLessThan(4096);
      return rpcMessages(new TextDecoder().decode(bytes))[0].result as ToolAnswer;
    };

    const guesses = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`guess_${i}`, i]));
    const many = await answerOf(guesses);
    const named = Array.from({ length: 20 }, (_, i) => `guess_${i}`);
    expect(many).toMatchObject({ isError: true, structuredContent: { code: "validation_error", error: `Unknown arguments: ${named.join(", ")} and 4,980 more` } });
    expect(many.structuredContent!.details).toEqual(named.map((field) => ({ field, message: "Unknown argument" })));

    const long = await answerOf({ ["x".repeat(100_000)]: 1 });
    expect(long.structuredContent).toMatchObject({ error: `Unknown argument: ${"x".repeat(32)}…`, details: [{ field: `${"x".repeat(32)}…`, message: "Unknown argument" }] });

    // Names whose every character the answer's JSON escapes (six bytes each), or that take four bytes each.
    for (const char of ["\u0001", "\u{1F600}"]) {
      const escaped = await answerOf(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`${i}${char.repeat(100)}`, i])));
      expect(escaped.structuredContent!.details).toHaveLength(20);
      expect(escaped.structuredContent!.error).toMatch(/ and 480 more$/);
    }
  });

  it("refuses a path argument that is not a string with the route's own message, and a query argument that is an object or array by name", async () => {
    const { token } = await setupAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Typed", last_name: "Input" } })).body.contact;
    const { call } = await connect(token);
    const rest = await api("GET", "/contacts/not-a-uuid", { token });
    expect(rest.body.error).toBe("contact_uuid must be a UUID");

    // A one-item array is not its item, and an object is never `[object Object]` (nor a TypeError).
    for (const value of [{ a: 1 }, { toString: 1 }, [contact.contact_uuid], 5, true, null, undefined]) {
      await expectSameError(await call("get_contact", { contact_uuid: value }), rest);
    }

    for (const [args, field, kind] of [
      [{ q: { a: 1 } }, "q", "an object"],
      [{ q: ["ada", "grace"] }, "q", "an array"],
      [{ limit: { toString: 1 } }, "limit", "an object"],
    ] as const) {
      const message = `${field} must be a string, a number or a boolean, not ${kind}`;
      expect(await call("search_contacts", args)).toMatchObject({
        isError: true,
        content: [{ type: "text", text: `${message} (code validation_error)` }],
        structuredContent: { success: false, code: "validation_error", error: message, details: [{ field, message }] },
      });
    }
    // Numbers and booleans still go as query text, for the route to check.
    expect((await call("search_contacts", { q: "typed", limit: 5 })).structuredContent!.contacts).toHaveLength(1);

    // The idempotency key travels in a header: the same rule, and nothing is sent.
    const keyed = await call("send_message", { contact_uuid: contact.contact_uuid, channel: "note", body: "Hi", idempotency_key: { toString: 1 } });
    expect(keyed.structuredContent).toMatchObject({ code: "validation_error", error: "idempotency_key must be a string, a number or a boolean, not an object" });
    expect((await api("GET", `/messages?contact_uuid=${contact.contact_uuid}`, { token })).body.messages).toEqual([]);
  });
  it("trusts browser pages of PUBLIC_BASE_URL's exact origin only: not another scheme, port or subdomain, nor `null`", async () => {
    const { token } = await setupAgency();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const fromPage = (publicBaseUrl: string, origin: string) => {
      const publicEnv = envWith({ PUBLIC_BASE_URL: publicBaseUrl });
      return postMcp(list, { Authorization: `Bearer ${token}`, Origin: origin }, (request) => fetchWithEnv(publicEnv, request));
    };

    for (const origin of ["http://partner.test", "https://partner.test:8443", "https://api.partner.test", "null"]) {
      const res = await fromPage("https://partner.test", origin);
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: `Invalid Origin: ${origin}` }, id: null });
    }
    const exact = await fromPage("https://partner.test", "https://partner.test");
    expect(exact.status).toBe(200);
    expect(rpcMessages(await exact.text())[0].result.tools.map((t: any) => t.name)).toEqual(ALL_TOOLS);

    // The port is part of the origin both ways.
    expect((await fromPage("https://partner.test:8443", "https://partner.test:8443")).status).toBe(200);
    expect((await fromPage("https://partner.test:8443", "https://partner.test")).status).toBe(403);
    // An agent sends no Origin, and is served whatever PUBLIC_BASE_URL is.
    const agent = await postMcp(list, { Authorization: `Bearer ${token}` }, (request) => fetchWithEnv(envWith({ PUBLIC_BASE_URL: "https://partner.test" }), request));
    expect(agent.status).toBe(200);
  });

  it("refuses a JSON-RPC batch on protocol 2025-06-18 and later with a 400, carrying none of it out", async () => {
    const { token } = await setupAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Batch", last_name: "Target" } })).body.contact;
    const notes = Array.from({ length: 100 }, (_, i) => toolCall(i + 1, "send_message", { contact_uuid: contact.contact_uuid, channel: "note", body: `Note ${i}` }));
    const auth = { Authorization: `Bearer ${token}` };
    const refusal = (version: string) => ({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid Request: JSON-RPC batches are not supported in protocol version ${version}; send one message per request` },
    });

    for (const version of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
      const res = await postMcp(notes, { ...auth, "MCP-Protocol-Version": version });
      expect(res.status, version).toBe(400);
      expect(await res.json()).toEqual(refusal(version));
    }
    // Without the header, an initialize inside the batch names the version.
    const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "batcher", version: "1" } } };
    const withInitialize = await postMcp([initialize, ...notes.slice(0, 2)], auth);
    expect(withInitialize.status).toBe(400);
    expect(await withInitialize.json()).toEqual(refusal("2025-06-18"));

    const sent = await api("GET", `/messages?contact_uuid=${contact.contact_uuid}`, { token });
    expect(sent.body.messages).toEqual([]);
  });

  it("serves a 2025-03-26 client's batch: one naming 2025-03-26, or one naming no version at all", async () => {
    const { token } = await setupAgency();
    const contact = (await api("POST", "/contacts", { token, body: { first_name: "Old", last_name: "Client" } })).body.contact;
    const note = (id: number) => toolCall(id, "send_message", { contact_uuid: contact.contact_uuid, channel: "note", body: `Note ${id}` });
    const auth = { Authorization: `Bearer ${token}` };

    const pinned = await postMcp([note(1), note(2)], { ...auth, "MCP-Protocol-Version": "2025-03-26" });
    expect(pinned.status).toBe(200);
    const pinnedAnswers = rpcMessages(await pinned.text());
    expect(pinnedAnswers.map((m) => m.id).sort()).toEqual([1, 2]);
    expect(pinnedAnswers.every((m) => m.result.structuredContent.message.channel === "note")).toBe(true);

    // No header and no initialize of a later version: the SDK's default, 2025-03-26.
    const unnamed = await postMcp([note(3), { jsonrpc: "2.0", id: 4, method: "tools/list" }], auth);
    expect(unnamed.status).toBe(200);
    expect(rpcMessages(await unnamed.text()).map((m) => m.id).sort()).toEqual([3, 4]);

    const sent = await api("GET", `/messages?contact_uuid=${contact.contact_uuid}`, { token });
    expect(sent.body.messages).toHaveLength(3);
  });

  it("puts X-Request-Id and the endpoint's RateLimit headers on every answer: results, JSON-RPC errors, 401, 403, 405, 429 and refused batches", async () => {
    const agencyUuid = await createAgency();
    // A tenth of the endpoint's limit: 12 requests of the key a minute.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 0.1 });
    const auth = { Authorization: `Bearer ${token}` };
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } } };
    const modern = { "MCP-Protocol-Version": "2025-06-18" };

    const answers: [string, Response, number][] = [
      ["initialize", await postMcp(initialize, auth), 200],
      ["tools/list", await postMcp({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { ...auth, ...modern, "X-Request-Id": "agent-trace-1" }), 200],
      ["tools/call", await postMcp(toolCall(3, "search_contacts", {}), { ...auth, ...modern }), 200],
      ["unknown method", await postMcp({ jsonrpc: "2.0", id: 4, method: "tools/explode" }, { ...auth, ...modern }), 200],
      ["not JSON-RPC", await postMcp({ hello: "world" }, { ...auth, ...modern }), 400],
      ["refused batch", await postMcp([{ jsonrpc: "2.0", id: 5, method: "tools/list" }], { ...auth, ...modern }), 400],
      ["GET", await exports.default.fetch(`${BASE}/mcp`, { headers: { ...auth, Accept: "text/event-stream" } }), 405],
    ];
    const remaining: number[] = [];
    for (const [label, res, status] of answers) {
      expect(res.status, label).toBe(status);
      expectEndpointHeaders(res, 12, label);
      remaining.push(Number(res.headers.get("RateLimit-Remaining")));
    }
    // Each one counted: the headers are the key's real standing.
    expect(remaining).toEqual([11, 10, 9, 8, 7, 6, 5]);
    // A request id the caller sent comes back on the SDK's own answers too.
    expect(answers[1]![1].headers.get("X-Request-Id")).toBe("agent-trace-1");
    expect(rpcMessages(await answers[3]![1].text())[0].error.code).toBe(-32601);

    let limited: Response | undefined;
    for (let i = 0; i < 6 && limited?.status !== 429; i++) limited = await postMcp({ jsonrpc: "2.0", id: 10 + i, method: "tools/list" }, { ...auth, ...modern });
    expect(limited!.status).toBe(429);
    expectEndpointHeaders(limited!, 12, "429");
    expect(limited!.headers.get("Retry-After")).toMatch(/^\d+$/);

    // Without a key, and from a page of another origin: counted against the client IP.
    const ip = uniqueIp();
    const noKey = await postMcp({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "CF-Connecting-IP": ip });
    expect(noKey.status).toBe(401);
    expectEndpointHeaders(noKey, 120, "401");
    const page = await postMcp({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { ...auth, Origin: "https://evil.example.com", "CF-Connecting-IP": ip });
    expect(page.status).toBe(403);
    expectEndpointHeaders(page, 120, "403");

  });

  it("counts a browser page it refuses against the client IP, as it counts a request without a key", async () => {
    const { token } = await setupAgency();
    const ip = uniqueIp();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const refused = async () => {
      const res = await postMcp(list, { Authorization: `Bearer ${token}`, Origin: "https://evil.example.com", "CF-Connecting-IP": ip });
      expect(res.status).toBe(403);
      return res.headers.get("RateLimit-Remaining");
    };
    expect(await refused()).toBe("119");
    expect(await refused()).toBe("118");
    const noKey = await postMcp(list, { "CF-Connecting-IP": ip });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("RateLimit-Remaining")).toBe("117");
    // The key itself was never presented to its gate: its own count is untouched.
    const own = await postMcp(list, { Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip });
    expect(own.headers.get("RateLimit-Remaining")).toBe("119");
  });

});

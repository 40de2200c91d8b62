import { describe, expect, it } from "vitest";
import { admin, api, call, expectError } from "../../helpers/http";
import { createAgency, setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import { createContact, inboundMessage, nextPhone, sendMessage } from "../../helpers/path-factories";
import { getMessage, settledSms } from "../../helpers/sms-queue";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const MESSAGE_KEYS = ["message_uuid", "contact_uuid", "channel", "direction", "body", "delivery_status", "delivery_error", "read_at", "created_at"].sort();
/** The simulated SMS provider refuses this number (Twilio's "cannot receive SMS" test number). */
const UNDELIVERABLE = "+15005550009";

const listMessages = (token: string, query = "") => api("GET", `/messages${query}`, { token });
const uuidsOf = (res: { body: any }) => res.body.messages.map((m: any) => m.message_uuid);

/** An agency with a `*` key and one contact that has a phone. */
async function agencyWithContact() {
  const agency = await setupAgency();
  const contact = await createContact(agency.token, { phone: nextPhone() });
  return { ...agency, contact };
}

describe("GET /messages", () => {
  it("lists the inbox newest first with exact fields and pagination totals", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const inbound = await inboundMessage(agencyUuid, contact.contact_uuid, "Hello?");
    const queued = await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "sms", body: "Hi Ada" });
    const sms = await settledSms(token, queued.message_uuid);
    const note = await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "note", body: "Called back" });

    const res = await listMessages(token);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(uuidsOf(res)).toEqual([note.message_uuid, sms.message_uuid, inbound.message_uuid]);
    expect(res.body.messages).toEqual([note, sms, inbound]);
    expect(Object.keys(res.body.messages[0]).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await listMessages(token, "?page=2&limit=2");
    expect(uuidsOf(page2)).toEqual([inbound.message_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("filters by contact, channel and unread, and combines them", async () => {
    const { agencyUuid, token, contact: ada } = await agencyWithContact();
    const grace = await createContact(token, { first_name: "Grace", phone: nextPhone() });
    const adaIn = await inboundMessage(agencyUuid, ada.contact_uuid);
    const graceIn = await inboundMessage(agencyUuid, grace.contact_uuid);
    const adaSms = await sendMessage(token, { contact_uuid: ada.contact_uuid, channel: "sms", body: "Hi" });
    const graceNote = await sendMessage(token, { contact_uuid: grace.contact_uuid, channel: "note", body: "VIP" });

    const cases: [string, string[]][] = [
      [`?contact_uuid=${ada.contact_uuid}`, [adaSms.message_uuid, adaIn.message_uuid]],
      [`?contact_uuid=${grace.contact_uuid.toUpperCase()}`, [graceNote.message_uuid, graceIn.message_uuid]],
      ["?channel=note", [graceNote.message_uuid]],
      ["?channel=sms", [adaSms.message_uuid, graceIn.message_uuid, adaIn.message_uuid]],
      ["?unread=true", [graceIn.message_uuid, adaIn.message_uuid]],
      ["?unread=false", [graceNote.message_uuid, adaSms.message_uuid]],
      [`?unread=true&contact_uuid=${grace.contact_uuid}`, [graceIn.message_uuid]],
      [`?channel=note&contact_uuid=${ada.contact_uuid}`, []],
      [`?contact_uuid=${RANDOM_UUID}`, []],
    ];
    for (const [query, expected] of cases) {
      const res = await listMessages(token, query);
      expect(res.status, query).toBe(200);
      expect(uuidsOf(res), query).toEqual(expected);
      expect(res.body.pagination.total, query).toBe(expected.length);
    }
  });

  it("keeps a soft-deleted contact's messages listed", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const message = await inboundMessage(agencyUuid, contact.contact_uuid);
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    expect(uuidsOf(await listMessages(token, `?contact_uuid=${contact.contact_uuid}`))).toEqual([message.message_uuid]);
  });

  it("never lists another agency's messages, even filtered by their contact", async () => {
    const a = await agencyWithContact();
    const b = await setupAgency();
    await inboundMessage(a.agencyUuid, a.contact.contact_uuid);
    expect((await listMessages(b.token)).body).toEqual({ success: true, messages: [], pagination: { page: 1, limit: 20, total: 0, next_cursor: null } });
    expect((await listMessages(b.token, `?contact_uuid=${a.contact.contact_uuid}`)).body.messages).toEqual([]);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await listMessages(token, "?unread=yes"), 400, "unread must be true or false", "validation_error");
    expectError(await listMessages(token, "?channel=email"), 400, "channel must be one of: sms, note", "validation_error");
    expectError(await listMessages(token, "?contact_uuid=42"), 400, "contact_uuid must be a UUID", "validation_error");
    expectError(await listMessages(token, "?limit=500"), 400, "limit must be a whole number from 1 to 100", "validation_error");
  });
});

describe("POST /messages", () => {
  it("stores an SMS queued (outbound, read) and the queue sends it through the provider: delivered", async () => {
    const { token, contact } = await agencyWithContact();
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid.toUpperCase(), channel: "sms", body: "  See you at 10!  " } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: {
        message_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        contact_uuid: contact.contact_uuid,
        channel: "sms",
        direction: "outbound",
        body: "See you at 10!",
        delivery_status: "queued",
        delivery_error: null,
        read_at: expect.stringMatching(ISO),
        created_at: expect.stringMatching(ISO),
      },
    });
    expect(res.body.message.read_at).toBe(res.body.message.created_at);
    const sent = await settledSms(token, res.body.message.message_uuid);
    expect(sent).toEqual({ ...res.body.message, delivery_status: "delivered" });
    expect((await listMessages(token)).body.messages).toEqual([sent]);
  });

  it("adds an internal note, never sent, to a contact without a phone", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "nophone@example.com" });
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, channel: "note", body: "Prefers email" } });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ channel: "note", direction: "internal", body: "Prefers email", delivery_status: null, read_at: expect.stringMatching(ISO) });
    expect((await listMessages(token, "?channel=note")).body.messages).toEqual([res.body.message]);
  });

  it("rejects an SMS to a contact without a phone with 400 and stores nothing", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "nophone@example.com" });
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, channel: "sms", body: "Hi" } });
    expectError(res, 400, "Contact has no phone number; add one before sending an SMS", "validation_error");
    expect((await listMessages(token)).body.pagination.total).toBe(0);
  });

  it("refuses an SMS to an opted-out number with 409 sms_opt_out, storing and sending nothing, whichever contact holds the number", async () => {
    const { token, contact } = await agencyWithContact();
    const sms = (uuid: string) => api("POST", "/messages", { token, body: { contact_uuid: uuid, channel: "sms", body: "Hello" } });
    const refused = (res: Awaited<ReturnType<typeof sms>>) =>
      expectError(res, 409, "Contact has opted out of SMS (texted STOP); they must text START to your number before you can send them an SMS", "sms_opt_out");
    expect((await api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { sms_opt_out: true } })).body.contact.sms_opt_out).toBe(true);
    refused(await sms(contact.contact_uuid));
    // Deleted and re-created with the number.
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token });
    const recreated = await createContact(token, { first_name: "Again", phone: contact.phone });
    refused(await sms(recreated.contact_uuid));
    // The number moved to another contact.
    await api("PATCH", `/contacts/${recreated.contact_uuid}`, { token, body: { phone: nextPhone() } });
    const given = await createContact(token, { first_name: "Grace", phone: nextPhone() });
    await api("PATCH", `/contacts/${given.contact_uuid}`, { token, body: { phone: contact.phone } });
    refused(await sms(given.contact_uuid));
    // The simulated provider was never reached: nothing stored, no message.sent event.
    expect((await listMessages(token)).body.pagination.total).toBe(0);
    expect((await api("GET", "/events?type=message.sent", { token })).body.events).toEqual([]);
    // A note is not a text, so it is still recorded; the contact that moved away is texted at its new phone.
    expect((await api("POST", "/messages", { token, body: { contact_uuid: given.contact_uuid, channel: "note", body: "Asked not to be texted" } })).status).toBe(201);
    expect((await sms(recreated.contact_uuid)).status).toBe(201);
  });

  it("keeps a message the provider refused, with delivery_status failed", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { phone: UNDELIVERABLE });
    const queued = await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "sms", body: "Hi" });
    expect(queued).toMatchObject({ direction: "outbound", delivery_status: "queued", delivery_error: null });
    const message = await settledSms(token, queued.message_uuid);
    expect(message).toEqual({ ...queued, delivery_status: "failed", delivery_error: "30003 Unreachable destination handset" });
    expect((await listMessages(token)).body.messages).toEqual([message]);
  });

  it("answers many SMS sent at once, each queued, and sends every one", async () => {
    const { token, contact } = await agencyWithContact();
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "sms", body: `Reminder ${i}` })));
    expect(sent.map((m) => m.delivery_status)).toEqual(Array(8).fill("queued"));
    for (const message of sent) expect((await settledSms(token, message.message_uuid)).delivery_status).toBe("delivered");
    expect((await listMessages(token, "?channel=sms")).body.pagination.total).toBe(8);
  });

  it("rejects an unknown, another agency's or a deleted contact with 400", async () => {
    const a = await agencyWithContact();
    const b = await agencyWithContact();
    const gone = await createContact(a.token, { first_name: "Gone", phone: nextPhone() });
    await api("DELETE", `/contacts/${gone.contact_uuid}`, { token: a.token });
    for (const contactUuid of [RANDOM_UUID, b.contact.contact_uuid, gone.contact_uuid]) {
      const res = await api("POST", "/messages", { token: a.token, body: { contact_uuid: contactUuid, channel: "sms", body: "Hi" } });
      expectError(res, 400, "Unknown contact_uuid", "validation_error");
    }
    expect((await listMessages(a.token)).body.pagination.total).toBe(0);
    expect((await listMessages(b.token)).body.pagination.total).toBe(0);
  });

  it.each([
    ["no body", { channel: "sms" }, "body is required"],
    ["a blank body", { channel: "sms", body: "   " }, "body must be 1 to 1600 characters for an SMS"],
    ["an SMS of 1601 characters", { channel: "sms", body: "x".repeat(1601) }, "body must be 1 to 1600 characters for an SMS"],
    ["a note of 10001 characters", { channel: "note", body: "x".repeat(10_001) }, "body must be 1 to 10000 characters for a note"],
    ["a body that is not a string", { channel: "note", body: 42 }, "body must be a string"],
    ["no channel", { body: "Hi" }, "channel is required"],
    ["an unknown channel", { channel: "email", body: "Hi" }, "channel must be one of: sms, note"],
    ["a direction", { channel: "sms", direction: "inbound", body: "Hi" }, "Unknown field: direction"],
    ["no contact_uuid", { contact_uuid: undefined, channel: "sms", body: "Hi" }, "contact_uuid is required"],
    ["a malformed contact_uuid", { contact_uuid: "ada", channel: "sms", body: "Hi" }, "contact_uuid must be a UUID"],
  ])("rejects %s with 400 and stores nothing", async (_name, extra, message) => {
    const { token, contact } = await agencyWithContact();
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, ...extra } });
    expectError(res, 400, message, "validation_error");
    expect((await listMessages(token)).body.pagination.total).toBe(0);
  });

  it("accepts a note longer than an SMS could be", async () => {
    const { token, contact } = await agencyWithContact();
    const note = await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "note", body: "n".repeat(5000) });
    expect(note.body).toHaveLength(5000);
  });

  it("sends once when retried with the same Idempotency-Key", async () => {
    const { token, contact } = await agencyWithContact();
    const request = { token, body: { contact_uuid: contact.contact_uuid, channel: "sms", body: "Once" }, headers: { "Idempotency-Key": "sms-retry-1" } };
    const first = await api("POST", "/messages", request);
    const retry = await api("POST", "/messages", request);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    await settledSms(token, first.body.message.message_uuid);
    expect((await listMessages(token)).body.pagination.total).toBe(1);
  });

  it("requires the messages scope", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    await expectScopeRequired(agencyUuid, "POST", "/messages", "messages", { body: { contact_uuid: contact.contact_uuid, channel: "sms", body: "Hi" } });
    expect((await listMessages(token)).body.pagination.total).toBe(0);
  });
});

describe("GET /messages/{message_uuid}", () => {
  it("answers one message as the list shows it, following an SMS from queued to delivered", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const inbound = await inboundMessage(agencyUuid, contact.contact_uuid);
    expect(await getMessage(token, inbound.message_uuid)).toEqual(inbound);
    const queued = await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "sms", body: "On my way" });
    const sent = await settledSms(token, queued.message_uuid);
    expect(await getMessage(token, queued.message_uuid.toUpperCase())).toEqual(sent);
    expect((await listMessages(token, "?channel=sms")).body.messages).toEqual([sent, inbound]);
  });

  it("answers 404 for a random uuid and another agency's message, 400 for a malformed one", async () => {
    const a = await agencyWithContact();
    const b = await setupAgency();
    const inbound = await inboundMessage(a.agencyUuid, a.contact.contact_uuid);
    expectError(await api("GET", `/messages/${RANDOM_UUID}`, { token: a.token }), 404, "Message not found", "not_found");
    expectError(await api("GET", `/messages/${inbound.message_uuid}`, { token: b.token }), 404, "Message not found", "not_found");
    expectError(await api("GET", "/messages/nope", { token: a.token }), 400, "message_uuid must be a UUID", "validation_error");
  });

  it("requires the messages scope", async () => {
    const { agencyUuid, contact } = await agencyWithContact();
    const inbound = await inboundMessage(agencyUuid, contact.contact_uuid);
    await expectScopeRequired(agencyUuid, "GET", `/messages/${inbound.message_uuid}`, "messages");
  });
});

describe("POST /messages/{message_uuid}/read and /unread", () => {
  it("shows an inbound message from the operator API as unread, then round-trips read and unread", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const inbound = await inboundMessage(agencyUuid, contact.contact_uuid, "Still available?");
    expect(inbound).toMatchObject({ channel: "sms", direction: "inbound", read_at: null, delivery_status: null });
    expect((await listMessages(token, "?unread=true")).body.messages).toEqual([inbound]);

    const read = await api("POST", `/messages/${inbound.message_uuid}/read`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, message: { ...inbound, read_at: expect.stringMatching(ISO) } });
    expect((await listMessages(token, "?unread=true")).body.messages).toEqual([]);
    expect((await listMessages(token, "?unread=false")).body.messages).toEqual([read.body.message]);

    // Reading again keeps the first read time.
    const again = await api("POST", `/messages/${inbound.message_uuid}/read`, { token });
    expect(again.body.message.read_at).toBe(read.body.message.read_at);

    const unread = await api("POST", `/messages/${inbound.message_uuid}/unread`, { token });
    expect(unread.status).toBe(200);
    expect(unread.body).toEqual({ success: true, message: inbound });
    expect((await listMessages(token, "?unread=true")).body.messages).toEqual([inbound]);
    // Unread twice is still unread.
    expect((await api("POST", `/messages/${inbound.message_uuid}/unread`, { token })).body.message.read_at).toBeNull();
  });

  it("can mark a sent message unread too", async () => {
    const { token, contact } = await agencyWithContact();
    const sms = await settledSms(token, (await sendMessage(token, { contact_uuid: contact.contact_uuid, channel: "sms", body: "Hi" })).message_uuid);
    const res = await api("POST", `/messages/${sms.message_uuid}/unread`, { token });
    expect(res.body.message).toEqual({ ...sms, read_at: null });
  });

  it.each(["read", "unread"])("answers 404 on /%s for a random uuid and another agency's message, changing nothing", async (action) => {
    const a = await agencyWithContact();
    const b = await setupAgency();
    const inbound = await inboundMessage(a.agencyUuid, a.contact.contact_uuid);
    const sent = await sendMessage(a.token, { contact_uuid: a.contact.contact_uuid, channel: "note", body: "Read" });
    expectError(await api("POST", `/messages/${RANDOM_UUID}/${action}`, { token: a.token }), 404, "Message not found", "not_found");
    const target = action === "read" ? inbound : sent;
    expectError(await api("POST", `/messages/${target.message_uuid}/${action}`, { token: b.token }), 404, "Message not found", "not_found");
    expect((await listMessages(a.token)).body.messages).toEqual([sent, inbound]);
  });

  it.each(["read", "unread"])("rejects a malformed message_uuid on /%s", async (action) => {
    const { token } = await setupAgency();
    expectError(await api("POST", `/messages/nope/${action}`, { token }), 400, "message_uuid must be a UUID", "validation_error");
  });

  it.each(["read", "unread"])("requires the messages scope on /%s", async (action) => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const inbound = await inboundMessage(agencyUuid, contact.contact_uuid);
    await expectScopeRequired(agencyUuid, "POST", `/messages/${inbound.message_uuid}/${action}`, "messages");
    expect((await listMessages(token)).body.messages).toEqual([inbound]);
  });
});

describe("operator: POST /admin/v1/agencies/{agency_uuid}/messages", () => {
  it("records inbound SMS unread, and outbound SMS and notes read", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const record = (body: Record<string, unknown>) => admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contact.contact_uuid, ...body });
    const inbound = await record({ channel: "sms", direction: "inbound", body: "Hi" });
    expect(inbound.status).toBe(201);
    expect(inbound.body).toEqual({
      success: true,
      message: {
        message_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        contact_uuid: contact.contact_uuid,
        channel: "sms",
        direction: "inbound",
        body: "Hi",
        delivery_status: null,
        delivery_error: null,
        read_at: null,
        created_at: expect.stringMatching(ISO),
      },
    });
    const outbound = await record({ channel: "sms", direction: "outbound", body: "Sent from the dashboard" });
    expect(outbound.body.message).toMatchObject({ direction: "outbound", delivery_status: "sent", read_at: expect.stringMatching(ISO) });
    const note = await record({ channel: "note", direction: "internal", body: "Dashboard note" });
    expect(note.body.message).toMatchObject({ channel: "note", direction: "internal", delivery_status: null });
    expect(uuidsOf(await listMessages(token, "?unread=true"))).toEqual([inbound.body.message.message_uuid]);
  });

  it.each([
    ["a note that is not internal", { channel: "note", direction: "inbound", body: "x" }, "direction must be inbound or outbound for sms, and internal for note"],
    ["an internal SMS", { channel: "sms", direction: "internal", body: "x" }, "direction must be inbound or outbound for sms, and internal for note"],
    ["an unknown direction", { channel: "sms", direction: "sideways", body: "x" }, "direction must be one of: inbound, outbound, internal"],
    ["no body", { channel: "sms", direction: "inbound" }, "body is required"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    expectError(await admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contact.contact_uuid, ...body }), 400, message, "validation_error");
    expect((await listMessages(token)).body.pagination.total).toBe(0);
  });

  it("rejects a contact of another agency with 400 and an unknown agency with 404", async () => {
    const a = await agencyWithContact();
    const otherAgency = await createAgency();
    const body = { contact_uuid: a.contact.contact_uuid, channel: "sms", direction: "inbound", body: "Hi" };
    expectError(await admin("POST", `/agencies/${otherAgency}/messages`, body), 400, "Unknown contact_uuid", "validation_error");
    expectError(await admin("POST", `/agencies/${RANDOM_UUID}/messages`, body), 404, "Agency not found", "not_found");
    expect((await listMessages(a.token)).body.pagination.total).toBe(0);
  });

  it("requires the operator token (a partner key is not one)", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const body = { contact_uuid: contact.contact_uuid, channel: "sms", direction: "inbound", body: "Hi" };
    expectError(await call("POST", `/admin/v1/agencies/${agencyUuid}/messages`, { token, body }), 401, "Invalid or missing token", "invalid_token");
    expect((await listMessages(token)).body.pagination.total).toBe(0);
  });
});

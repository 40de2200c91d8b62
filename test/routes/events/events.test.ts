import { afterEach, describe, expect, it, vi } from "vitest";
import { simulatedProvider } from "@/integrations/simulators/voice";
import { ProviderError } from "@/domain/voice-ai/voice-provider";
import { SIMULATED_UNDELIVERABLE } from "@/integrations/simulators/sms";
import { eventMessages } from "@/routes/events/events.schemas";
import { admin, api, expectError, type ApiResponse } from "../../helpers/http";
import { createAgency, createKey, createMember, setupAgency } from "../../helpers/factories";
import { book, bookingBody, freeStarts, nextWeekday, openBusinessHours } from "../../helpers/calendar-factories";
import { createLeadOrder } from "../../helpers/lead-order-factories";
import { CONTENT_STEP } from "../../helpers/path-factories";
import { restoreClock, setClock } from "../../helpers/clock";
import { apiWithEnv, envWith, getCall, patchSettings, pollAfterCallEnds, recordingQueue, setupVoiceAgency } from "../../helpers/voice-factories";
import { deliver, dial, runCron } from "../../helpers/voice-queue";
import { settledSms } from "../../helpers/sms-queue";

const RANDOM_UUID = "6f1c2b9e-4d3a-4f5e-9b8c-7a6d5e4f3c2b";
const MINUTE = 60_000;
const DAY = 86_400_000;

afterEach(() => {
  vi.restoreAllMocks();
  restoreClock();
});

interface PublicEvent {
  event_uuid: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

/** The agency's events of one type, newest first (GET /events). */
async function eventsOf(token: string, type: string): Promise<PublicEvent[]> {
  const res = await api("GET", `/events?type=${type}&limit=100`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events;
}

/** The one event of `type` the agency has, whose object is `object` (the record as its route returns it). */
async function expectOneEvent(token: string, type: string, object: unknown) {
  const events = await eventsOf(token, type);
  expect(events.map((e) => e.type)).toEqual([type]);
  expect(events[0]!.data.object).toEqual(object);
  return events[0]!;
}

/** Expects `response` (an action's) to have `status` and the action to have written one event of `type`, whose object is the record it returned (`body[key]`). */
async function expectRecordEvent(token: string, type: string, key: string, response: Promise<ApiResponse<any>>, status = 200) {
  const res = await response;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  await expectOneEvent(token, type, res.body[key]);
  return res;
}

/** The events of `type` so far, to compare after a failed action: it must add none. */
const countOf = async (token: string, type: string) => (await eventsOf(token, type)).length;

/** Runs each failed action, expecting its status, and then that the agency has no more events of `type` than before. */
async function expectNoNewEvents(token: string, type: string, failures: [() => Promise<ApiResponse<any>>, number][]) {
  const before = await countOf(token, type);
  for (const [action, status] of failures) {
    const res = await action();
    expect(res.status, JSON.stringify(res.body)).toBe(status);
  }
  expect(await countOf(token, type)).toBe(before);
}

let counter = 0;
const unique = () => `${++counter}-${crypto.randomUUID().slice(0, 8)}`;

async function createContact(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", email: `ada-${unique()}@example.com`, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.contact as Record<string, any>;
}

async function getContact(token: string, contactUuid: string) {
  const res = await api("GET", `/contacts/${contactUuid}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.contact as Record<string, any>;
}

describe("contact events", () => {
  it("contact.created: one per POST /contacts, with the contact as returned; none for a 400 or a 409", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token, { email: "ada@example.com", tags: ["buyer"], phone: "+14155550123" });
    await expectOneEvent(token, "contact.created", contact);
    await expectNoNewEvents(token, "contact.created", [
      [() => api("POST", "/contacts", { token, body: { last_name: "Nameless" } }), 400],
      [() => api("POST", "/contacts", { token, body: { first_name: "Twin", last_name: "Ada", email: "ADA@example.com" } }), 409],
    ]);
  });

  it("contact.updated, contact.deleted, contact.restored: the contact as each route returns it; none for failures", async () => {
    const { token } = await setupAgency();
    const contact = await createContact(token);
    const other = await createContact(token);

    await expectRecordEvent(token, "contact.updated", "contact", api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { last_name: "Byron", tags: ["vip"] } }));
    await expectNoNewEvents(token, "contact.updated", [
      [() => api("PATCH", `/contacts/${RANDOM_UUID}`, { token, body: { last_name: "Nobody" } }), 404],
      [() => api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { email: other.email } }), 409],
      [() => api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: { email: "not-an-email" } }), 400],
      // Nothing to change: no write, no event.
      [() => api("PATCH", `/contacts/${contact.contact_uuid}`, { token, body: {} }), 200],
    ]);

    await expectRecordEvent(token, "contact.deleted", "contact", api("DELETE", `/contacts/${contact.contact_uuid}`, { token }));
    await expectNoNewEvents(token, "contact.deleted", [[() => api("DELETE", `/contacts/${contact.contact_uuid}`, { token }), 404]]);

    await expectRecordEvent(token, "contact.restored", "contact", api("POST", `/contacts/${contact.contact_uuid}/restore`, { token }));
    await expectNoNewEvents(token, "contact.restored", [
      [() => api("POST", `/contacts/${contact.contact_uuid}/restore`, { token }), 409],
      [() => api("POST", `/contacts/${RANDOM_UUID}/restore`, { token }), 404],
    ]);
  });

  it("contact.created for the contact a booking creates, none when the booking reuses one", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [first, second] = await freeStarts(token, nextWeekday(2));
    const body = bookingBody(first!);
    const res = await api("POST", "/calendar/bookings", { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await expectOneEvent(token, "contact.created", await getContact(token, res.body.appointment.contact_uuid));
    await expectNoNewEvents(token, "contact.created", [[() => api("POST", "/calendar/bookings", { token, body: { ...body, start_at: second } }), 201]]);
  });

  it("contact.created for the contact a call creates, none when the call reuses one", async () => {
    const { token } = await setupVoiceAgency();
    const customEnv = envWith({ CALL_QUEUE: recordingQueue().queue });
    const body = { phone: "+14155550123", first_name: "Grace", last_name: "Hopper" };
    const res = await apiWithEnv(customEnv, "POST", "/voice-ai/calls", token, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await expectOneEvent(token, "contact.created", await getContact(token, res.body.call.contact_uuid));
    await expectNoNewEvents(token, "contact.created", [[() => apiWithEnv(customEnv, "POST", "/voice-ai/calls", token, body), 201]]);
  });
});

describe("appointment events", () => {
  it("appointment.booked, appointment.updated, appointment.canceled: the appointment as returned; none for failures", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const [first, second] = await freeStarts(token, nextWeekday(2));
    const booked = await book(token, first!);
    expect(booked.contact_name).toBe("Ada Lovelace");
    await expectOneEvent(token, "appointment.booked", booked);
    await expectNoNewEvents(token, "appointment.booked", [
      [() => api("POST", "/calendar/bookings", { token, body: bookingBody(first!) }), 409],
      [() => api("POST", "/calendar/bookings", { token, body: { start_at: second } }), 400],
    ]);

    await expectRecordEvent(token, "appointment.updated", "appointment", api("PATCH", `/appointments/${booked.appointment_uuid}`, { token, body: { notes: "Bring the deed", start_at: second } }));
    await expectNoNewEvents(token, "appointment.updated", [
      [() => api("PATCH", `/appointments/${RANDOM_UUID}`, { token, body: { notes: "x" } }), 404],
      [() => api("PATCH", `/appointments/${booked.appointment_uuid}`, { token, body: { status: "canceled" } }), 400],
    ]);

    await expectRecordEvent(token, "appointment.canceled", "appointment", api("POST", `/appointments/${booked.appointment_uuid}/cancel`, { token }));
    await expectNoNewEvents(token, "appointment.canceled", [
      [() => api("POST", `/appointments/${booked.appointment_uuid}/cancel`, { token }), 409],
      [() => api("POST", `/appointments/${RANDOM_UUID}/cancel`, { token }), 404],
    ]);
    await expectNoNewEvents(token, "appointment.updated", [[() => api("PATCH", `/appointments/${booked.appointment_uuid}`, { token, body: { notes: "x" } }), 409]]);
  });
});

describe("call events", () => {
  /** A voice agency whose calls' dial messages are recorded, not delivered: the test delivers them. */
  async function voiceAgency(options: Parameters<typeof setupVoiceAgency>[0] = {}) {
    const agency = await setupVoiceAgency(options);
    const customEnv = envWith({ CALL_QUEUE: recordingQueue().queue });
    const create = (body: Record<string, unknown> = {}) => apiWithEnv(customEnv, "POST", "/voice-ai/calls", agency.token, { phone: "+14155550123", ...body });
    const created = async (body: Record<string, unknown> = {}) => {
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.call as Record<string, any>;
    };
    return { ...agency, customEnv, create, created };
  }

  /** The agency's events of `type` for one call, oldest first. */
  const callEvents = async (token: string, type: string, callUuid: string) =>
    (await eventsOf(token, type)).filter((e) => e.data.object.call_uuid === callUuid).reverse();

  it("call.scheduled for a queued and for a scheduled call, as returned; none for a 400 or a 402", async () => {
    const { token, created, create } = await voiceAgency();
    const queued = await created();
    expect(queued.status).toBe("queued");
    await expectOneEvent(token, "call.scheduled", queued);
    const scheduled = await created({ scheduled_at: new Date(Date.now() + 3 * DAY).toISOString().slice(0, 16) + "Z" });
    expect(scheduled.status).toBe("scheduled");
    expect((await callEvents(token, "call.scheduled", scheduled.call_uuid)).map((e) => e.data.object)).toEqual([scheduled]);
    await expectNoNewEvents(token, "call.scheduled", [[() => create({ phone: "not a phone" }), 400]]);

    const broke = await voiceAgency({ balanceCents: 0 });
    await expectNoNewEvents(broke.token, "call.scheduled", [[() => broke.create({ first_name: "Ada", last_name: "Lovelace" }), 402]]);
    expect(await countOf(broke.token, "contact.created")).toBe(0);
  });

  it("call.canceled as returned; none for a second cancel or an unknown call", async () => {
    const { token, created } = await voiceAgency();
    const call = await created({ delay_seconds: 3600 });
    await expectRecordEvent(token, "call.canceled", "call", api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token }));
    await expectNoNewEvents(token, "call.canceled", [
      [() => api("POST", `/voice-ai/calls/${call.call_uuid}/cancel`, { token }), 409],
      [() => api("POST", `/voice-ai/calls/${RANDOM_UUID}/cancel`, { token }), 404],
    ]);
    // A canceled call is never claimed.
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(await countOf(token, "call.started")).toBe(0);
  });

  it("call.started at the claim and call.completed at the end, each the call as GET shows it then; a redelivered dial or poll adds none", async () => {
    const { token, created } = await voiceAgency();
    const call = await created();
    await deliver([{ body: dial(call.call_uuid) }, { body: dial(call.call_uuid) }]);
    const running = await getCall(token, call.call_uuid);
    expect(running.status).toBe("in-progress");
    await expectOneEvent(token, "call.started", running);

    await pollAfterCallEnds(call.call_uuid, running.started_at);
    const done = await getCall(token, call.call_uuid);
    expect(done.status).toBe("completed");
    await expectOneEvent(token, "call.completed", done);
    await pollAfterCallEnds(call.call_uuid, running.started_at);
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(await countOf(token, "call.completed")).toBe(1);
    expect(await countOf(token, "call.started")).toBe(1);
    expect(await countOf(token, "call.failed")).toBe(0);
  });

  it("call.failed when the consumer gives up a dial, as GET shows it", async () => {
    const { token, created } = await voiceAgency();
    const call = await created();
    vi.spyOn(simulatedProvider, "startCall").mockRejectedValue(new ProviderError("Rejected (test)", { retryable: false }));
    await deliver([{ body: dial(call.call_uuid) }]);
    const failed = await getCall(token, call.call_uuid);
    expect(failed).toMatchObject({ status: "failed", ended_reason: "dial-failed" });
    await expectOneEvent(token, "call.failed", failed);
    expect(await countOf(token, "call.completed")).toBe(0);
  });

  it("call.updated when a dial holds a queued call for calling hours, as GET shows it; none for a stray dial of the held call", async () => {
    setClock("2026-12-02T15:00:00.000Z"); // 10:00 in New York
    const { token, created } = await voiceAgency({ callingHours: { start: "09:00", end: "19:00" } });
    const call = await created();
    expect(call.status).toBe("queued");
    // The hours close before the dial; the call is queued, not held, so the PATCH moves nothing.
    await patchSettings(token, { calling_hours: { start: "18:00", end: "19:00" } });
    expect(await countOf(token, "call.updated")).toBe(0);

    await deliver([{ body: dial(call.call_uuid) }]);
    const held = await getCall(token, call.call_uuid);
    expect(held).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T23:00:00.000Z" });
    await expectOneEvent(token, "call.updated", held);
    await deliver([{ body: dial(call.call_uuid) }]);
    expect(await getCall(token, call.call_uuid)).toEqual(held);
    expect(await countOf(token, "call.updated")).toBe(1);
    expect(await countOf(token, "call.started")).toBe(0);
  });

  it("call.updated when a failed dial puts the call back to queued, as GET shows it; the next claim is call.started again", async () => {
    const { token, created } = await voiceAgency();
    const call = await created({ phone: "+14155550008" }); // fails its first dial only
    await deliver([{ body: dial(call.call_uuid) }]);
    const released = await getCall(token, call.call_uuid);
    expect(released).toMatchObject({ status: "queued", started_at: null });
    await expectOneEvent(token, "call.updated", released);

    await deliver([{ body: dial(call.call_uuid) }]);
    const running = await getCall(token, call.call_uuid);
    expect(running.status).toBe("in-progress");
    expect((await callEvents(token, "call.started", call.call_uuid)).map((e) => e.data.object.status)).toEqual(["in-progress", "in-progress"]);
    expect((await eventsOf(token, "call.started"))[0]!.data.object).toEqual(running);
    expect(await countOf(token, "call.updated")).toBe(1);
  });

  it("call.updated when a failed dial's retry is held for calling hours, as GET shows it", async () => {
    setClock("2026-12-02T23:59:50.000Z"); // 18:59:50 in New York: the retry falls after 19:00
    const { token, created } = await voiceAgency({ callingHours: { start: "09:00", end: "19:00" } });
    const call = await created({ phone: "+14155550008" });
    await deliver([{ body: dial(call.call_uuid) }]);
    const held = await getCall(token, call.call_uuid);
    expect(held).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-03T14:00:00.000Z", started_at: null });
    await expectOneEvent(token, "call.updated", held);
  });

  it("call.updated for each call the cron queues, once even when two sweeps run at once; none for a run with nothing due", async () => {
    setClock("2026-12-02T15:00:00.000Z");
    const { token, created, customEnv } = await voiceAgency();
    const dueAt = Date.now() + 3 * DAY;
    const call = await created({ scheduled_at: new Date(dueAt).toISOString() });
    expect(call.status).toBe("scheduled");

    await runCron(Date.now(), customEnv);
    expect(await getCall(token, call.call_uuid)).toEqual(call);
    expect(await countOf(token, "call.updated")).toBe(0);

    await Promise.all([runCron(dueAt - 30_000, customEnv), runCron(dueAt - 30_000, customEnv)]);
    const queued = await getCall(token, call.call_uuid);
    expect(queued.status).toBe("queued");
    await expectOneEvent(token, "call.updated", queued);
  });

  it("call.updated for each held call a change of calling hours moves, as GET shows it; none for calls it does not move", async () => {
    setClock("2026-12-02T15:00:00.000Z"); // 10:00 in New York
    const { token, created } = await voiceAgency({ callingHours: { start: "18:00", end: "19:00" } });
    const held = await created();
    expect(held).toMatchObject({ status: "scheduled", dispatch_at: "2026-12-02T23:00:00.000Z" });
    const canceled = await created();
    expect((await api("POST", `/voice-ai/calls/${canceled.call_uuid}/cancel`, { token })).status).toBe(200);

    await patchSettings(token, { calling_hours: { start: "17:00", end: "19:00" } });
    const moved = await getCall(token, held.call_uuid);
    expect(moved.dispatch_at).toBe("2026-12-02T22:00:00.000Z");
    await expectOneEvent(token, "call.updated", moved);

    // The same opening: nothing moves.
    await patchSettings(token, { calling_hours: { start: "17:00", end: "20:00" } });
    expect(await getCall(token, held.call_uuid)).toEqual(moved);
    expect(await countOf(token, "call.updated")).toBe(1);
  });

  it("call.failed when a dead-lettered call is marked failed, once", async () => {
    const { token, created } = await voiceAgency();
    const call = await created();
    await deliver([{ body: dial(call.call_uuid) }], { queue: "voice-calls-dlq" });
    const failed = await getCall(token, call.call_uuid);
    expect(failed).toMatchObject({ status: "failed", ended_reason: "dial-failed" });
    await expectOneEvent(token, "call.failed", failed);
    await deliver([{ body: dial(call.call_uuid) }, { body: dial(RANDOM_UUID) }], { queue: "voice-calls-dlq" });
    expect(await countOf(token, "call.failed")).toBe(1);
  });

  it("call.failed for each call the sweep closes, once even when two sweeps run at once", async () => {
    const { token, created, customEnv } = await voiceAgency();
    // Never dialed: its message is lost.
    const lost = await created({ phone: "+14155550124" });
    // Dialed, but the provider never reports an end.
    const stuck = await created({ phone: "+14155550125" });
    vi.spyOn(simulatedProvider, "startCall").mockResolvedValue({ state: "active", providerCallId: "sim-stuck", pollAfterSeconds: 30 });
    await deliver([{ body: dial(stuck.call_uuid) }], { env: customEnv });
    const start = Date.now();

    await Promise.all([runCron(start + 21 * MINUTE, customEnv), runCron(start + 21 * MINUTE, customEnv)]);
    const overrun = await getCall(token, stuck.call_uuid);
    expect(overrun).toMatchObject({ status: "failed", ended_reason: "exceeded-max-duration" });
    expect((await callEvents(token, "call.failed", stuck.call_uuid)).map((e) => e.data.object)).toEqual([overrun]);
    expect(await callEvents(token, "call.failed", lost.call_uuid)).toEqual([]);

    await Promise.all([runCron(start + 41 * MINUTE, customEnv), runCron(start + 41 * MINUTE, customEnv)]);
    const timedOut = await getCall(token, lost.call_uuid);
    expect(timedOut).toMatchObject({ status: "failed", ended_reason: "dispatch-timed-out" });
    expect((await callEvents(token, "call.failed", lost.call_uuid)).map((e) => e.data.object)).toEqual([timedOut]);
    expect(await countOf(token, "call.failed")).toBe(2);
  });
});

describe("message events", () => {
  async function agencyWithContact() {
    const agency = await setupAgency();
    const contact = await createContact(agency.token, { phone: "+14155550123" });
    return { ...agency, contact };
  }

  /** The message as GET /messages shows it. */
  async function listed(token: string, messageUuid: string) {
    const res = await api("GET", "/messages?limit=100", { token });
    return (res.body.messages as Record<string, any>[]).find((m) => m.message_uuid === messageUuid);
  }

  it("message.received for an inbound SMS the operator records, as the partner sees it; none for a 400", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const res = await admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contact.contact_uuid, channel: "sms", direction: "inbound", body: "Hi!" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await expectOneEvent(token, "message.received", await listed(token, res.body.message.message_uuid));
    await expectNoNewEvents(token, "message.received", [
      [() => admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: RANDOM_UUID, channel: "sms", direction: "inbound", body: "Hi!" }), 400],
    ]);
  });

  it("message.sent when an outbound SMS is stored (queued), message.updated when the queue has sent it, each as GET /messages shows it then; none for a 400", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const res = await api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, channel: "sms", body: "See you at 10" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.message.delivery_status).toBe("queued");
    await expectOneEvent(token, "message.sent", res.body.message);
    const delivered = await settledSms(token, res.body.message.message_uuid);
    expect(delivered.delivery_status).toBe("delivered");
    expect(await listed(token, delivered.message_uuid)).toEqual(delivered);
    await expectOneEvent(token, "message.updated", delivered);

    const unreachable = await createContact(token, { phone: SIMULATED_UNDELIVERABLE.values().next().value });
    const queued = await api("POST", "/messages", { token, body: { contact_uuid: unreachable.contact_uuid, channel: "sms", body: "Hi" } });
    expect(queued.body.message).toMatchObject({ delivery_status: "queued", delivery_error: null });
    const failed = await settledSms(token, queued.body.message.message_uuid);
    expect(failed.delivery_status).toBe("failed");
    expect((await eventsOf(token, "message.updated")).map((e) => e.data.object)).toEqual([failed, delivered]);
    expect((await eventsOf(token, "message.sent")).map((e) => e.data.object)).toEqual([queued.body.message, res.body.message]);

    const noPhone = await createContact(token);
    for (const type of ["message.sent", "message.updated"]) {
      await expectNoNewEvents(token, type, [
        [() => api("POST", "/messages", { token, body: { contact_uuid: noPhone.contact_uuid, channel: "sms", body: "Hi" } }), 400],
        [() => api("POST", "/messages", { token, body: { contact_uuid: RANDOM_UUID, channel: "sms", body: "Hi" } }), 400],
      ]);
    }
    // One the operator records as sent is message.sent too, and never updated.
    const recorded = await admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contact.contact_uuid, channel: "sms", direction: "outbound", body: "Sent" });
    expect((await eventsOf(token, "message.sent"))[0]!.data.object).toEqual(await listed(token, recorded.body.message.message_uuid));
    expect(await countOf(token, "message.updated")).toBe(2);
  });

  it("message.note_added for a note, as returned", async () => {
    const { token, contact } = await agencyWithContact();
    await expectRecordEvent(token, "message.note_added", "message", api("POST", "/messages", { token, body: { contact_uuid: contact.contact_uuid, channel: "note", body: "Prefers email" } }), 201);
    expect(await countOf(token, "message.sent")).toBe(0);
  });

  it("message.read and message.unread only when the read state changes, as returned", async () => {
    const { agencyUuid, token, contact } = await agencyWithContact();
    const inbound = await admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contact.contact_uuid, channel: "sms", direction: "inbound", body: "Hi!" });
    const uuid = inbound.body.message.message_uuid;

    await expectRecordEvent(token, "message.read", "message", api("POST", `/messages/${uuid}/read`, { token }));
    await expectNoNewEvents(token, "message.read", [
      [() => api("POST", `/messages/${uuid}/read`, { token }), 200],
      [() => api("POST", `/messages/${RANDOM_UUID}/read`, { token }), 404],
    ]);

    const unread = await expectRecordEvent(token, "message.unread", "message", api("POST", `/messages/${uuid}/unread`, { token }));
    expect(unread.body.message.read_at).toBeNull();
    await expectNoNewEvents(token, "message.unread", [
      [() => api("POST", `/messages/${uuid}/unread`, { token }), 200],
      [() => api("POST", `/messages/${RANDOM_UUID}/unread`, { token }), 404],
    ]);
  });
});

describe("lead order events", () => {
  const getOrder = async (token: string, uuid: string) => (await api("GET", `/lead-orders/${uuid}`, { token })).body.lead_order;

  it("lead_order.created when the operator creates one, as the partner sees it; none for a 400", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    await expectOneEvent(token, "lead_order.created", await getOrder(token, order.order_uuid));
    await expectNoNewEvents(token, "lead_order.created", [[() => admin("POST", `/agencies/${agencyUuid}/lead-orders`, { name: "No cap", states: ["TX"] }), 400]]);
  });

  it("lead_order.updated, paused, resumed, canceled as returned; none for failures and idempotent repeats", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const path = `/lead-orders/${order.order_uuid}`;

    await expectRecordEvent(token, "lead_order.updated", "lead_order", api("PATCH", path, { token, body: { daily_max: 40 } }));
    await expectNoNewEvents(token, "lead_order.updated", [
      [() => api("PATCH", `/lead-orders/${RANDOM_UUID}`, { token, body: { daily_max: 40 } }), 404],
      [() => api("PATCH", path, { token, body: { daily_max: -1 } }), 400],
      [() => api("PATCH", path, { token, body: {} }), 200],
    ]);

    await expectRecordEvent(token, "lead_order.paused", "lead_order", api("POST", `${path}/pause`, { token, body: { paused: true } }));
    await expectNoNewEvents(token, "lead_order.paused", [
      [() => api("POST", `${path}/pause`, { token, body: { paused: true } }), 200],
      [() => api("POST", `/lead-orders/${RANDOM_UUID}/pause`, { token, body: { paused: true } }), 404],
    ]);
    await expectRecordEvent(token, "lead_order.resumed", "lead_order", api("POST", `${path}/pause`, { token, body: { paused: false } }));
    await expectNoNewEvents(token, "lead_order.resumed", [[() => api("POST", `${path}/pause`, { token, body: { paused: false } }), 200]]);

    await expectRecordEvent(token, "lead_order.canceled", "lead_order", api("POST", `${path}/cancel`, { token }));
    await expectNoNewEvents(token, "lead_order.canceled", [[() => api("POST", `${path}/cancel`, { token }), 409]]);
    await expectNoNewEvents(token, "lead_order.updated", [[() => api("PATCH", path, { token, body: { daily_max: 10 } }), 409]]);
    await expectNoNewEvents(token, "lead_order.paused", [[() => api("POST", `${path}/pause`, { token, body: { paused: true } }), 409]]);
  });
});

describe("path events", () => {
  it("path.created, updated, published, deleted as returned; none for failures", async () => {
    const { token } = await setupAgency();
    const created = await expectRecordEvent(token, "path.created", "path", api("POST", "/paths", { token, body: { name: "Seller funnel" } }), 201);
    await expectNoNewEvents(token, "path.created", [[() => api("POST", "/paths", { token, body: { name: "" } }), 400]]);
    const path = `/paths/${created.body.path.path_uuid}`;

    await expectNoNewEvents(token, "path.published", [[() => api("POST", `${path}/publish`, { token }), 400]]);
    await expectRecordEvent(token, "path.updated", "path", api("PATCH", path, { token, body: { steps: [CONTENT_STEP] } }));
    await expectNoNewEvents(token, "path.updated", [[() => api("PATCH", `/paths/${RANDOM_UUID}`, { token, body: { name: "x" } }), 404]]);

    await expectRecordEvent(token, "path.published", "path", api("POST", `${path}/publish`, { token }));
    await expectNoNewEvents(token, "path.published", [[() => api("POST", `${path}/publish`, { token }), 409]]);

    await expectRecordEvent(token, "path.deleted", "path", api("DELETE", path, { token }));
    await expectNoNewEvents(token, "path.deleted", [
      [() => api("DELETE", path, { token }), 409],
      [() => api("DELETE", `/paths/${RANDOM_UUID}`, { token }), 404],
    ]);
    await expectNoNewEvents(token, "path.updated", [[() => api("PATCH", path, { token, body: { name: "x" } }), 409]]);
  });
});

describe("field events", () => {
  it("field.created, updated, archived as returned; none for failures", async () => {
    const { token } = await setupAgency();
    const created = await expectRecordEvent(token, "field.created", "field", api("POST", "/fields", { token, body: { key: "budget", label: "Budget", type: "text" } }), 201);
    await expectNoNewEvents(token, "field.created", [
      [() => api("POST", "/fields", { token, body: { key: "budget", label: "Again", type: "text" } }), 409],
      [() => api("POST", "/fields", { token, body: { key: "Bad Key", label: "Bad", type: "text" } }), 400],
    ]);
    const path = `/fields/${created.body.field.field_uuid}`;

    await expectRecordEvent(token, "field.updated", "field", api("PATCH", path, { token, body: { label: "Budget (USD)" } }));
    await expectNoNewEvents(token, "field.updated", [[() => api("PATCH", `/fields/${RANDOM_UUID}`, { token, body: { label: "x" } }), 404]]);

    await expectRecordEvent(token, "field.archived", "field", api("DELETE", path, { token }));
    await expectNoNewEvents(token, "field.archived", [[() => api("DELETE", path, { token }), 404]]);
    await expectNoNewEvents(token, "field.updated", [[() => api("PATCH", path, { token, body: { label: "x" } }), 404]]);
  });
});

describe("user events", () => {
  it("user.created when the operator adds a member, as GET /users shows it; none for a 409", async () => {
    const { agencyUuid, token } = await setupAgency();
    const uuid = await createMember(agencyUuid, { email: "dana@example.com" });
    const member = (await api("GET", "/users", { token })).body.members.find((m: any) => m.agent_uuid === uuid);
    await expectOneEvent(token, "user.created", member);
    await expectNoNewEvents(token, "user.created", [
      [() => admin("POST", `/agencies/${agencyUuid}/members`, { name: "Twin", email: "dana@example.com", role: "agent" }), 409],
    ]);
  });

  it("user.invited with the invite as returned; none for a 409 or a 400", async () => {
    const { token } = await setupAgency();
    await expectRecordEvent(token, "user.invited", "invite", api("POST", "/users/invites", { token, body: { email: "new@example.com", role: "agent" } }), 201);
    await expectNoNewEvents(token, "user.invited", [
      [() => api("POST", "/users/invites", { token, body: { email: "new@example.com", role: "admin" } }), 409],
      [() => api("POST", "/users/invites", { token, body: { email: "owner@example.com", role: "owner" } }), 400],
    ]);
  });

  it("user.role_changed only when the role changes, user.removed, as returned; none for failures", async () => {
    const { agencyUuid, token } = await setupAgency();
    const agent = await createMember(agencyUuid);
    const owner = await createMember(agencyUuid, { role: "owner" });

    const changed = await expectRecordEvent(token, "user.role_changed", "member", api("PATCH", `/users/${agent}/role`, { token, body: { role: "admin" } }));
    expect(changed.body.member.role).toBe("admin");
    await expectNoNewEvents(token, "user.role_changed", [
      [() => api("PATCH", `/users/${agent}/role`, { token, body: { role: "admin" } }), 200],
      [() => api("PATCH", `/users/${owner}/role`, { token, body: { role: "agent" } }), 409],
      [() => api("PATCH", `/users/${RANDOM_UUID}/role`, { token, body: { role: "agent" } }), 404],
    ]);

    await expectRecordEvent(token, "user.removed", "member", api("DELETE", `/users/${agent}`, { token }));
    await expectNoNewEvents(token, "user.removed", [
      [() => api("DELETE", `/users/${agent}`, { token }), 404],
      [() => api("DELETE", `/users/${owner}`, { token }), 409],
    ]);
    await expectNoNewEvents(token, "user.role_changed", [[() => api("PATCH", `/users/${agent}/role`, { token, body: { role: "agent" } }), 404]]);
  });
});

describe("GET /events", () => {
  /** Three contacts created a minute apart from `start`; their events, oldest first. */
  async function threeContacts(start: string) {
    setClock(start);
    const agency = await setupAgency();
    const contacts = [];
    for (const name of ["First", "Second", "Third"]) {
      contacts.push(await createContact(agency.token, { first_name: name }));
      vi.setSystemTime(Date.now() + MINUTE);
    }
    return { ...agency, contacts };
  }

  it("lists newest first with exact fields, filters by type, and pages", async () => {
    const { token, contacts } = await threeContacts("2026-11-21T14:00:00.000Z");
    const field = await api("POST", "/fields", { token, body: { key: "budget", label: "Budget", type: "text" } });

    const all = await api("GET", "/events", { token });
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 4, next_cursor: null });
    expect(all.body.events.map((e: PublicEvent) => e.type)).toEqual(["field.created", "contact.created", "contact.created", "contact.created"]);
    expect(all.body.events.map((e: PublicEvent) => e.data.object)).toEqual([field.body.field, ...[...contacts].reverse()]);
    for (const event of all.body.events) {
      expect(Object.keys(event).sort()).toEqual(["created_at", "data", "event_uuid", "type"]);
      expect(event.event_uuid).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(all.body.events[3].created_at).toBe("2026-11-21T14:00:00.000Z");

    const contactsOnly = await api("GET", "/events?type=contact.created", { token });
    expect(contactsOnly.body.events).toEqual(all.body.events.slice(1));
    expect(contactsOnly.body.pagination.total).toBe(3);
    expect((await api("GET", "/events?type=contact.deleted", { token })).body).toEqual({ success: true, events: [], pagination: { page: 1, limit: 20, total: 0, next_cursor: null } });

    const page2 = await api("GET", "/events?limit=3&page=2", { token });
    expect(page2.body.events).toEqual(all.body.events.slice(3));
    expect(page2.body.pagination).toEqual({ page: 2, limit: 3, total: 4, next_cursor: null });
  });

  it("filters by from (inclusive) and to (exclusive), in any UTC offset", async () => {
    const { token } = await threeContacts("2026-11-21T14:00:00.000Z");
    const names = async (query: string) => {
      const res = await api("GET", `/events?${query}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.events.map((e: PublicEvent) => e.data.object.first_name);
    };
    expect(await names("from=2026-11-21T14:01:00.000Z")).toEqual(["Third", "Second"]);
    expect(await names("to=2026-11-21T14:01:00Z")).toEqual(["First"]);
    expect(await names("from=2026-11-21T09:01:00-05:00&to=2026-11-21T14:02:00Z")).toEqual(["Second"]);
    expect(await names("from=2026-11-21T15:00:00%2B01:00&type=contact.created")).toEqual(["Third", "Second", "First"]);
  });

  it("answers 400 for a malformed instant, an unknown type or bad paging", async () => {
    const { token } = await setupAgency();
    for (const query of ["from=yesterday", "from=2026-11-21", "from=2026-11-21T14:05:00", "from=2026-13-45T14:05:00Z"]) {
      expectError(await api("GET", `/events?${query}`, { token }), 400, eventMessages.instant("from"), "validation_error");
    }
    expectError(await api("GET", "/events?to=soon", { token }), 400, eventMessages.instant("to"), "validation_error");
    expectError(await api("GET", "/events?type=contact.exploded", { token }), 400, eventMessages.type, "validation_error");
    expectError(await api("GET", "/events?limit=101", { token }), 400, undefined, "validation_error");
  });

  it("GET /events/{event_uuid} returns the event as listed; 404 for another agency's event and an unknown uuid", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createContact(a.token);
    await createContact(b.token);
    const [listed] = (await api("GET", "/events", { token: a.token })).body.events;
    const one = await api("GET", `/events/${listed.event_uuid}`, { token: a.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, event: listed });
    expect((await api("GET", `/events/${listed.event_uuid.toUpperCase()}`, { token: a.token })).body.event).toEqual(listed);

    const [theirs] = (await api("GET", "/events", { token: b.token })).body.events;
    expectError(await api("GET", `/events/${theirs.event_uuid}`, { token: a.token }), 404, eventMessages.notFound, "not_found");
    expectError(await api("GET", `/events/${RANDOM_UUID}`, { token: a.token }), 404, eventMessages.notFound, "not_found");
    expectError(await api("GET", "/events/not-a-uuid", { token: a.token }), 400, undefined, "validation_error");
    // Each agency sees only its own.
    expect((await api("GET", "/events", { token: a.token })).body.pagination.total).toBe(1);
  });

  it("accepts a key with only the webhooks scope", async () => {
    const agencyUuid = await createAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["webhooks"] });
    expect((await api("GET", "/events", { token })).status).toBe(200);
  });
});

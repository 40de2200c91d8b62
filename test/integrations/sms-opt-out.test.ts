import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "@/env";
import { api, expectError } from "../helpers/http";
import { type TestAgency } from "../helpers/factories";
import { createContact, nextPhone } from "../helpers/path-factories";
import { dbOf } from "../helpers/shards";
import { agencyWithNumber, fakeTwilio, inboundText, sendQueued, sendSms, twilioEnv, twilioSid } from "../helpers/providers";
import { createEndpoint, recordingWebhookQueue } from "../helpers/webhooks";

/**
 * Opt-out by phone number (docs/decisions/sms-opt-out.md), end to end through Twilio: texts
 * posted as Twilio signs them, sends through a fake of Twilio's Messages API that records every
 * request it gets.
 */

const OPTED_OUT = "Contact has opted out of SMS (texted STOP); they must text START to your number before you can send them an SMS";

afterEach(() => {
  vi.unstubAllGlobals();
});

const getContact = async (agency: TestAgency, uuid: string) => {
  const res = await api("GET", `/contacts/${uuid}`, { token: agency.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.contact as Record<string, any>;
};

/** Every contact of the agency holding `phone`, live or soft-deleted, as the API lists them. */
async function holdersOf(agency: TestAgency, phone: string) {
  const live = await api("GET", `/contacts?q=${encodeURIComponent(phone)}&limit=100`, { token: agency.token });
  const deleted = await api("GET", `/contacts?q=${encodeURIComponent(phone)}&deleted=true&limit=100`, { token: agency.token });
  return [...live.body.contacts, ...deleted.body.contacts].filter((c: any) => c.phone === phone) as Record<string, any>[];
}

async function suppressionOf(agency: TestAgency, number: string) {
  const db = await dbOf(agency.agencyUuid);
  return db.prepare("SELECT number, source, message_id, since FROM sms_suppressions WHERE agency_id = ? AND number = ?").bind(agency.agencyUuid, number).first();
}

async function outboundOf(agency: TestAgency) {
  const db = await dbOf(agency.agencyUuid);
  return (await db.prepare("SELECT id FROM messages WHERE agency_id = ? AND direction = 'outbound'").bind(agency.agencyUuid).all()).results;
}

/**
 * The `sms_opt_out` of each `contact.updated` event of `contactUuid`, in the order they were
 * committed (rowid): two texts answered in the same millisecond have no order in `GET /events`,
 * which sorts by time, then id.
 */
async function committedStates(agency: TestAgency, contactUuid: string) {
  const db = await dbOf(agency.agencyUuid);
  const rows = await db
    .prepare("SELECT json_extract(snapshot, '$.smsOptOut') AS opted FROM events WHERE agency_id = ? AND type = 'contact.updated' AND json_extract(snapshot, '$.id') = ? ORDER BY rowid")
    .bind(agency.agencyUuid, contactUuid)
    .all<{ opted: number }>();
  return rows.results.map((r) => r.opted === 1);
}

/** `contact.updated` events of the agency, oldest first, as `GET /events` renders them. */
async function contactUpdates(agency: TestAgency) {
  const res = await api("GET", "/events?type=contact.updated&limit=100", { token: agency.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.events as any[]).reverse().map((e) => e.data.object as Record<string, any>);
}

async function expectText(res: { status: number; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
}

describe("STOP suppresses the number, not the contact", () => {
  it("refuses a contact deleted and re-created with the number: 409, Twilio gets nothing, nothing stored", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const first = await createContact(agency.token, { phone });
    await expectText(await inboundText(agency, phone, "STOP"));
    expect((await api("DELETE", `/contacts/${first.contact_uuid}`, { token: agency.token })).status).toBe(200);
    const again = await createContact(agency.token, { first_name: "Ada again", phone });
    expect(again.sms_opt_out).toBe(true);

    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    expectError(await sendSms(agency, again.contact_uuid, "We miss you"), 409, OPTED_OUT, "sms_opt_out");
    expect(twilio.requests).toEqual([]);
    expect(await outboundOf(agency)).toEqual([]);
    expect(await suppressionOf(agency, phone)).toMatchObject({ number: phone, source: "keyword" });
  });

  it("refuses another contact given the number after the first one's phone changed, and texts the first at its new phone", async () => {
    const agency = await agencyWithNumber();
    const [phone, newPhone] = [nextPhone(), nextPhone()];
    const ada = await createContact(agency.token, { phone });
    const grace = await createContact(agency.token, { first_name: "Grace" });
    await expectText(await inboundText(agency, phone, "Stop"));
    expect((await getContact(agency, ada.contact_uuid)).sms_opt_out).toBe(true);

    const moved = await api("PATCH", `/contacts/${ada.contact_uuid}`, { token: agency.token, body: { phone: newPhone } });
    expect(moved.body.contact).toMatchObject({ phone: newPhone, sms_opt_out: false });
    const taken = await api("PATCH", `/contacts/${grace.contact_uuid}`, { token: agency.token, body: { phone } });
    expect(taken.body.contact).toMatchObject({ phone, sms_opt_out: true });

    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    expectError(await sendSms(agency, grace.contact_uuid, "Hello Grace"), 409, OPTED_OUT, "sms_opt_out");
    expect(twilio.requests).toEqual([]);
    expect(await outboundOf(agency)).toEqual([]);
    // The number the person opted out from is the one refused; Ada's new number is not.
    const toAda = await sendSms(agency, ada.contact_uuid, "Hello Ada");
    expect(toAda.status, JSON.stringify(toAda.body)).toBe(201);
    await sendQueued();
    expect(twilio.requests.map((r) => r.form.To)).toEqual([newPhone]);
  });

  it("suppresses on every keyword of the STOP family and lifts on every one of the START family, whatever the case and spaces", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    for (const [stop, start] of [["STOP", "START"], ["stopall", "yes"], [" Unsubscribe ", "UNSTOP"], ["CANCEL", "start"], ["end", "Yes"], ["QUIT", "unstop"]] as const) {
      await expectText(await inboundText(agency, phone, stop));
      expect((await getContact(agency, contact.contact_uuid)).sms_opt_out, stop).toBe(true);
      await expectText(await inboundText(agency, phone, start));
      expect((await getContact(agency, contact.contact_uuid)).sms_opt_out, start).toBe(false);
    }
    // Not a keyword: a sentence containing one changes nothing.
    await expectText(await inboundText(agency, phone, "please stop calling me at work"));
    expect((await getContact(agency, contact.contact_uuid)).sms_opt_out).toBe(false);
    expect(await suppressionOf(agency, phone)).toBeNull();
  });

  it("opts out a number no contact has yet: the contact the text creates, and any contact given the number later, show it", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    await expectText(await inboundText(agency, phone, "STOP"));
    const [created] = await holdersOf(agency, phone);
    expect(created).toMatchObject({ phone, source: "sms", sms_opt_out: true });
    await api("DELETE", `/contacts/${created!.contact_uuid}`, { token: agency.token });
    const later = await createContact(agency.token, { phone });
    expect(later.sms_opt_out).toBe(true);
  });
});

describe("a message waiting in the queue when its number opts out", () => {
  it("is never texted: the send attempt finds the suppression and the message ends failed", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    const sent = await sendSms(agency, contact.contact_uuid, "Open house on Sunday");
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.message.delivery_status).toBe("queued");
    await expectText(await inboundText(agency, phone, "STOP"));

    expect(await sendQueued()).toBe(1);
    expect(twilio.requests).toEqual([]);
    const read = await api("GET", `/messages/${sent.body.message.message_uuid}`, { token: agency.token });
    expect(read.body.message).toMatchObject({ delivery_status: "failed", delivery_error: `Not sent: ${OPTED_OUT}` });
  });
});

describe("START lifts the suppression", () => {
  it("shows every contact holding the number opted in again, and texts reach Twilio", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const old = await createContact(agency.token, { phone });
    await expectText(await inboundText(agency, phone, "STOP"));
    await api("DELETE", `/contacts/${old.contact_uuid}`, { token: agency.token });
    const current = await createContact(agency.token, { phone });
    expect((await holdersOf(agency, phone)).map((c) => c.sms_opt_out)).toEqual([true, true]);

    await expectText(await inboundText(agency, phone, "START"));
    expect((await holdersOf(agency, phone)).map((c) => c.sms_opt_out)).toEqual([false, false]);
    expect(await suppressionOf(agency, phone)).toBeNull();
    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    const sent = await sendSms(agency, current.contact_uuid, "Welcome back");
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await sendQueued();
    expect(twilio.requests.map((r) => r.form.To)).toEqual([phone]);
  });

  it("lifts an opt-out set through the API", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    const patched = await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: agency.token, body: { sms_opt_out: true } });
    expect(patched.body.contact.sms_opt_out).toBe(true);
    expect(await suppressionOf(agency, phone)).toMatchObject({ source: "api", message_id: null });
    await expectText(await inboundText(agency, phone, "START"));
    expect((await getContact(agency, contact.contact_uuid)).sms_opt_out).toBe(false);
  });
});

describe("a redelivered or racing keyword", () => {
  it("changes nothing twice when Twilio sends one STOP again, even after a START", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    const stopSid = twilioSid();
    await expectText(await inboundText(agency, phone, "STOP", { sid: stopSid }));
    const suppressed = await suppressionOf(agency, phone);
    await expectText(await inboundText(agency, phone, "STOP", { sid: stopSid }));
    expect(await suppressionOf(agency, phone)).toEqual(suppressed);
    expect((await contactUpdates(agency)).map((c) => c.sms_opt_out)).toEqual([true]);

    await expectText(await inboundText(agency, phone, "START"));
    // The old STOP delivered once more (a retry that crossed the START): still opted in.
    await expectText(await inboundText(agency, phone, "STOP", { sid: stopSid }));
    expect(await suppressionOf(agency, phone)).toBeNull();
    expect((await getContact(agency, contact.contact_uuid)).sms_opt_out).toBe(false);
    expect((await contactUpdates(agency)).map((c) => c.sms_opt_out)).toEqual([true, false]);
    const db = await dbOf(agency.agencyUuid);
    expect(await db.prepare("SELECT count(*) AS n FROM messages WHERE agency_id = ? AND provider_message_id = ?").bind(agency.agencyUuid, stopSid).first("n")).toBe(1);
  });

  it("settles a STOP and a START arriving at once to one state, shown by every contact, its events and the send check", async () => {
    const agency = await agencyWithNumber();
    for (let round = 0; round < 4; round++) {
      const phone = nextPhone();
      const deleted = await createContact(agency.token, { phone });
      await api("DELETE", `/contacts/${deleted.contact_uuid}`, { token: agency.token });
      const live = await createContact(agency.token, { phone });

      const answers = await Promise.all([inboundText(agency, phone, "STOP"), inboundText(agency, phone, "START")]);
      for (const answer of answers) await expectText(answer);

      const suppressed = (await suppressionOf(agency, phone)) !== null;
      const holders = await holdersOf(agency, phone);
      expect(holders.map((c) => c.sms_opt_out)).toEqual([suppressed, suppressed]);
      // Each contact's events alternate and end in the state it shows: START then STOP is one
      // change (START found nothing to lift), STOP then START is two.
      for (const holder of holders) expect(await committedStates(agency, holder.contact_uuid)).toEqual(suppressed ? [true] : [true, false]);
      const twilio = fakeTwilio();
      vi.stubGlobal("fetch", twilio.fetch);
      const sent = await sendSms(agency, live.contact_uuid, "Hello");
      expect(sent.status).toBe(suppressed ? 409 : 201);
      expect(await sendQueued()).toBe(suppressed ? 0 : 1);
      expect(twilio.requests).toHaveLength(suppressed ? 0 : 1);
      vi.unstubAllGlobals();
    }
  });
});

describe("contact.updated events of an opt-out", () => {
  it("records one per contact holding the number, in order, in the batch of the text that caused them", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const old = await createContact(agency.token, { phone });
    await api("DELETE", `/contacts/${old.contact_uuid}`, { token: agency.token });
    const current = await createContact(agency.token, { phone });
    const other = await createContact(agency.token, { phone: nextPhone() });

    for (const body of ["STOP", "START", "STOP"]) await expectText(await inboundText(agency, phone, body));

    const updates = await contactUpdates(agency);
    const statesOf = (uuid: string) => updates.filter((c) => c.contact_uuid === uuid).map((c) => c.sms_opt_out);
    expect(statesOf(current.contact_uuid)).toEqual([true, false, true]);
    expect(statesOf(old.contact_uuid)).toEqual([true, false, true]);
    expect(statesOf(other.contact_uuid)).toEqual([]);
    // Each event shows the contact as the change left it: what the API returns afterwards.
    const last = updates.filter((c) => c.contact_uuid === current.contact_uuid).at(-1);
    expect(last).toEqual(await getContact(agency, current.contact_uuid));
    expect(updates.filter((c) => c.contact_uuid === old.contact_uuid).at(-1)!.deleted_at).not.toBeNull();

    // Each text's message.received comes before the contact.updated events it caused, in the same instant.
    const db = await dbOf(agency.agencyUuid);
    const rows = (
      await db.prepare("SELECT type, created_at FROM events WHERE agency_id = ? AND type IN ('message.received', 'contact.updated') ORDER BY created_at, rowid").bind(agency.agencyUuid).all<{ type: string; created_at: string }>()
    ).results;
    expect(rows.map((r) => r.type)).toEqual(["message.received", "contact.updated", "contact.updated", "message.received", "contact.updated", "contact.updated", "message.received", "contact.updated", "contact.updated"]);
  });

  it("publishes each event to a subscribed webhook endpoint", async () => {
    const agency = await agencyWithNumber();
    const phone = nextPhone();
    const old = await createContact(agency.token, { phone });
    await api("DELETE", `/contacts/${old.contact_uuid}`, { token: agency.token });
    await createContact(agency.token, { phone });
    await createEndpoint(agency.token, { events: ["contact.updated"] });
    const recorder = recordingWebhookQueue();
    const customEnv = { ...twilioEnv(), WEBHOOK_QUEUE: recorder.queue } as Env;

    await expectText(await inboundText(agency, phone, "STOP", { env: customEnv }));

    const db = await dbOf(agency.agencyUuid);
    const deliveries = (
      await db
        .prepare("SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.agency_id = ? AND e.type = 'contact.updated'")
        .bind(agency.agencyUuid)
        .all<{ id: string }>()
    ).results.map((r) => r.id);
    expect(deliveries).toHaveLength(2);
    expect(recorder.sent.map((m) => (m.body as { delivery_id: string }).delivery_id).sort()).toEqual([...deliveries].sort());
  });
});

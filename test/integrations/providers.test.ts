import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import type { Env } from "@/env";
import { admin, expectError } from "../helpers/http";
import { setupAgency, type TestAgency } from "../helpers/factories";
import { createContact } from "../helpers/path-factories";
import { getCall, getWallet, ledgerOf } from "../helpers/voice-factories";
import { deliver, poll } from "../helpers/voice-queue";
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  agencyWithNumber,
  dialedVapiCall,
  ENDED,
  eventTypes,
  fakeTwilio,
  messagesOf,
  PUBLIC,
  report,
  send,
  serverPath,
  sendQueued,
  sendSms,
  statusPath,
  TWILIO_URL,
  twilioPost,
  VAPI_SECRET,
} from "../helpers/providers";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The message as GET /messages shows it. */
async function readMessage(agency: TestAgency, messageUuid: string) {
  const res = await send(env as unknown as Env, `/api/v2/messages/${messageUuid}`, { token: agency.token });
  expect(res.status).toBe(200);
  return res.body.message;
}

describe("SMS through Twilio", () => {
  it("answers 201 queued, then the queue sends from the agency's number with a StatusCallback; a signed status callback moves it to delivered, never back", async () => {
    const agency = await agencyWithNumber();
    const contact = await createContact(agency.token, { phone: "+14155550161" });
    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    const sent = await sendSms(agency, contact.contact_uuid, "Your showing is confirmed.");
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.message).toMatchObject({ direction: "outbound", delivery_status: "queued", delivery_error: null });
    expect(twilio.requests).toEqual([]);
    expect(await sendQueued()).toBe(1);
    expect(twilio.requests).toEqual([
      {
        method: "POST",
        url: `${TWILIO_URL}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
        authorization: `Basic ${btoa(`${ACCOUNT_SID}:${AUTH_TOKEN}`)}`,
        form: {
          To: "+14155550161",
          From: agency.number,
          Body: "Your showing is confirmed.",
          StatusCallback: `${PUBLIC}/providers/twilio/status?agency=${agency.agencyUuid}&message=${sent.body.message.message_uuid}`,
        },
      },
    ]);
    const [stored] = await messagesOf(agency);
    const sid = stored!.provider_message_id!;
    expect(sid).toBe(twilio.created[0]!.sid);
    expect(stored!.delivery_status).toBe("sent");

    const callback = statusPath(twilio.requests[0]!.form.StatusCallback!);
    const status = (MessageStatus: string, extra: Record<string, string> = {}) =>
      twilioPost(callback, { MessageSid: sid, MessageStatus, AccountSid: ACCOUNT_SID, From: agency.number, To: "+14155550161", ApiVersion: "2010-04-01", ...extra });
    expect((await status("sent")).status).toBe(204);
    expect((await status("delivered")).status).toBe(204);
    // Out of order: a late `sent` does not move a delivered message back.
    expect((await status("sent")).status).toBe(204);
    expect(await readMessage(agency, sent.body.message.message_uuid)).toMatchObject({ delivery_status: "delivered", delivery_error: null });
    expect((await eventTypes(agency)).filter((t) => t.startsWith("message."))).toEqual(["message.sent", "message.updated", "message.updated"]);
    // A callback with a bad signature changes nothing.
    expectError(await twilioPost(callback, { MessageSid: sid, MessageStatus: "failed", From: agency.number }, "bm90IHR3aWxpbw=="), 403, "Invalid X-Twilio-Signature", "invalid_signature");
    // A report for another of Twilio's messages does not touch this one.
    expect((await twilioPost(callback, { MessageSid: "SMother", MessageStatus: "failed", From: agency.number })).status).toBe(204);
    expect((await readMessage(agency, sent.body.message.message_uuid)).delivery_status).toBe("delivered");
  });

  it("keeps Twilio's error code when it refuses a send, and when a message turns out undelivered", async () => {
    const agency = await agencyWithNumber();
    const bad = await createContact(agency.token, { phone: "+15005550001" });
    const good = await createContact(agency.token, { phone: "+14155550162" });
    const twilio = fakeTwilio();
    vi.stubGlobal("fetch", twilio.fetch);
    const refused = await sendSms(agency, bad.contact_uuid, "Hello");
    expect(refused.status).toBe(201);
    expect(refused.body.message).toMatchObject({ delivery_status: "queued", delivery_error: null });
    const accepted = await sendSms(agency, good.contact_uuid, "Hello");
    await sendQueued();
    expect(await readMessage(agency, refused.body.message.message_uuid)).toMatchObject({
      delivery_status: "failed",
      delivery_error: "21211 The 'To' number +15005550001 is not a valid phone number.",
    });
    const sid = (await messagesOf(agency)).find((m) => m.id === accepted.body.message.message_uuid)!.provider_message_id!;
    const undelivered = await twilioPost(statusPath(twilio.posts().find((r) => r.form.To === "+14155550162")!.form.StatusCallback!), {
      MessageSid: sid,
      MessageStatus: "undelivered",
      ErrorCode: "30003",
      From: agency.number,
      To: "+14155550162",
    });
    expect(undelivered.status).toBe(204);
    expect(await readMessage(agency, accepted.body.message.message_uuid)).toMatchObject({ delivery_status: "failed", delivery_error: "30003" });
  });

  it("applies a delivery report that arrives before Twilio's answer to the send, and the answer does not undo it", async () => {
    const agency = await agencyWithNumber();
    const contact = await createContact(agency.token, { phone: "+14155550164" });
    // Twilio reports `delivered` while the send's own answer (`queued`) is still on its way.
    const twilio = fakeTwilio([], {
      onCreate: async (message) => {
        const report = await twilioPost(statusPath(twilio.posts().at(-1)!.form.StatusCallback!), { MessageSid: message.sid, MessageStatus: "delivered", From: agency.number });
        expect(report.status).toBe(204);
      },
    });
    vi.stubGlobal("fetch", twilio.fetch);
    const sent = await sendSms(agency, contact.contact_uuid, "Early report");
    expect(sent.status).toBe(201);
    await sendQueued();
    expect(await readMessage(agency, sent.body.message.message_uuid)).toMatchObject({ delivery_status: "delivered", delivery_error: null });
    expect((await messagesOf(agency))[0]!.provider_message_id).toBe(twilio.created[0]!.sid);
    expect((await eventTypes(agency)).filter((t) => t.startsWith("message."))).toEqual(["message.sent", "message.updated"]);
  });
});

describe("inbound SMS from Twilio", () => {
  const inbound = (agency: { number: string }, params: Record<string, string>, signature?: string | null) =>
    twilioPost("/providers/twilio/sms", { AccountSid: ACCOUNT_SID, To: agency.number, NumMedia: "0", ...params }, signature);

  it("stores a signed text for the agency owning the To number, creating its contact, and answers empty TwiML; a retry is stored once", async () => {
    const agency = await agencyWithNumber();
    const sid = `SM${crypto.randomUUID().replaceAll("-", "")}`;
    const first = await inbound(agency, { MessageSid: sid, From: "+14155550171", Body: "Is the house still available?" });
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toContain("text/xml");
    expect(first.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    const again = await inbound(agency, { MessageSid: sid, From: "+14155550171", Body: "Is the house still available?" });
    expect(again.status).toBe(200);
    const stored = await messagesOf(agency);
    expect(stored).toEqual([
      expect.objectContaining({ direction: "inbound", body: "Is the house still available?", provider_message_id: sid, delivery_status: null }),
    ]);
    const contact = await send(env as unknown as Env, `/api/v2/contacts/${stored[0]!.contact_id}`, { token: agency.token });
    expect(contact.body.contact).toMatchObject({ phone: "+14155550171", source: "sms", sms_opt_out: false });
    expect((await eventTypes(agency)).filter((t) => t === "message.received")).toHaveLength(1);
  });

  it("refuses an invalid or missing signature with 403 and stores nothing", async () => {
    const agency = await agencyWithNumber();
    const params = { MessageSid: `SM${crypto.randomUUID().replaceAll("-", "")}`, From: "+14155550172", Body: "Hello" };
    // Signed for another URL, and signed with another token.
    const wrongUrl = getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC}/elsewhere`, { AccountSid: ACCOUNT_SID, To: agency.number, NumMedia: "0", ...params });
    const wrongToken = getExpectedTwilioSignature("not-our-token", `${PUBLIC}/providers/twilio/sms`, { AccountSid: ACCOUNT_SID, To: agency.number, NumMedia: "0", ...params });
    for (const signature of [wrongUrl, wrongToken, "", null]) {
      expectError(await inbound(agency, params, signature), 403, "Invalid X-Twilio-Signature", "invalid_signature");
    }
    // A body changed after signing.
    const signed = getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC}/providers/twilio/sms`, { AccountSid: ACCOUNT_SID, To: agency.number, NumMedia: "0", ...params });
    expectError(await inbound(agency, { ...params, Body: "Hello!" }, signed), 403, "Invalid X-Twilio-Signature", "invalid_signature");
    expect(await messagesOf(agency)).toEqual([]);
  });

  it("answers 404 for a To number no agency has, storing nothing", async () => {
    const agency = await agencyWithNumber();
    const res = await inbound({ number: "+14155559999" }, { MessageSid: `SM${crypto.randomUUID().replaceAll("-", "")}`, From: "+14155550173", Body: "Hi" });
    expectError(res, 404, "No agency has this SMS number", "not_found");
    expect(await messagesOf(agency)).toEqual([]);
  });

  it("gives a number to one agency only: 409 for another", async () => {
    const first = await agencyWithNumber();
    const second = await setupAgency();
    const res = await admin("PUT", `/agencies/${second.agencyUuid}/sms-number`, { number: first.number });
    expectError(res, 409, `${first.number} is the SMS number of another agency (${first.agencyUuid})`, "conflict");
    const read = await admin("GET", `/agencies/${first.agencyUuid}`);
    expect(read.body.agency.sms_number).toBe(first.number);
    expectError(await admin("PUT", `/agencies/${second.agencyUuid}/sms-number`, { number: "12" }), 400);
  });
});

describe("Vapi server messages", () => {
  it("asks Vapi for status updates and the end-of-call report at our URL, with our secret", async () => {
    const { vapi, call, agencyUuid } = await dialedVapiCall();
    expect(vapi.requests[0]!.body.assistantOverrides).toMatchObject({
      server: { url: `${PUBLIC}/providers/vapi/events?call=${call.call_uuid}&agency=${agencyUuid}`, headers: { "x-vapi-secret": VAPI_SECRET } },
      serverMessages: ["status-update", "end-of-call-report"],
      metadata: { call_uuid: call.call_uuid, agency_uuid: agencyUuid },
    });
  });

  it("completes a call by the end-of-call report alone, charging once, and a poll after it finds the call ended", async () => {
    const { token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    // A status update that the call is in progress only says it is alive (as a poll would).
    const status = await send(vapiEnv, serverPath(vapi, providerCallId), {
      method: "POST",
      headers: { "Content-Type": "application/json", "x-vapi-secret": VAPI_SECRET },
      body: JSON.stringify({ message: { type: "status-update", status: "in-progress", call: vapi.calls.get(providerCallId) } }),
    });
    expect(status.body).toEqual({ success: true, applied: true });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "in-progress", cost_cents: null });
    const res = await report(vapiEnv, vapi, providerCallId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, applied: true });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", duration_seconds: 121, summary: "Booked a showing.", cost_cents: 36 });
    expect((await report(vapiEnv, vapi, providerCallId)).body).toEqual({ success: true, applied: false });
    await deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv });
    expect(vapi.requests.filter((r) => r.method === "GET")).toEqual([]);
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
    expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
  });

  it("completes a call by the poll alone when no report comes", async () => {
    const { token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    vapi.end(providerCallId, ENDED);
    await deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", cost_cents: 36 });
    expect(await ledgerOf(call.call_uuid)).toHaveLength(1);
  });

  it("applies a report and a poll arriving at once exactly once: one completion, one debit", async () => {
    const { token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    vapi.end(providerCallId, ENDED);
    const [reported] = await Promise.all([report(vapiEnv, vapi, providerCallId), deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv }), report(vapiEnv, vapi, providerCallId)]);
    expect(reported.status).toBe(200);
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", cost_cents: 36 });
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
    expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
  });

  it("refuses a wrong or missing secret with 403, changing nothing", async () => {
    const { token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    expectError(await report(vapiEnv, vapi, providerCallId, "not-the-secret"), 403, "Invalid x-vapi-secret", "invalid_signature");
    expectError(await report(vapiEnv, vapi, providerCallId, null), 403, "Invalid x-vapi-secret", "invalid_signature");
    // The right secret, but not a call's own URL: nothing to route by.
    const unrouted = await send(vapiEnv, "/providers/vapi/events", {
      method: "POST",
      headers: { "Content-Type": "application/json", "x-vapi-secret": VAPI_SECRET },
      body: JSON.stringify({ message: { type: "end-of-call-report", ...ENDED, call: vapi.calls.get(providerCallId) } }),
    });
    expectError(unrouted, 400, undefined, "validation_error");
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "in-progress" });
  });
});

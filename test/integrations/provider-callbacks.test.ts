import { afterEach, describe, expect, it, vi } from "vitest";
import { freezeAgency, unfreezeAgency } from "@/db/agency-copy";
import type { ProviderCallback } from "@/domain/provider-callbacks/provider-callback";
import { api, expectError, uniqueIp } from "../helpers/http";
import { holdMove, finishHeldMove, rollBackHeldMove } from "../helpers/moves";
import { createContact } from "../helpers/path-factories";
import {
  ACCOUNT_SID,
  agencyWithNumber,
  dialedVapiCall,
  ENDED,
  eventTypes,
  fakeTwilio,
  messagesOf,
  report,
  sendSms,
  statusUpdate,
  twilioEnv,
  twilioPost,
  twilioSid,
  vapiMessage,
} from "../helpers/providers";
import { shardDb, shardNameOf } from "../helpers/shards";
import { getCall, getWallet, ledgerOf, recordingQueue } from "../helpers/voice-factories";
import { deliver, poll } from "../helpers/voice-queue";

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
const RATE_LIMITED = "Rate limit exceeded. Retry after the number of seconds in the Retry-After header.";
/** Failed signature checks a client IP may make per minute on each callback route (src/lib/rate-limits.ts). */
const UNVERIFIED_LIMIT = 60;

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A queue that keeps what the Worker sends it, so the test hands it to the consumer when it chooses. */
const callbackQueue = () => recordingQueue<ProviderCallback>();

/** Hands queued callbacks to the Worker's consumer as their `attempts`-th delivery, as the queue would. */
const consume = (messages: { body: ProviderCallback }[], attempts = 1, queue = "provider-callbacks") =>
  deliver(
    messages.map((m) => ({ body: m.body, attempts })),
    { queue, asSent: true },
  );

/** A text a person sends to the agency's number, signed as Twilio signs it. */
const text = (agency: { number: string }, from: string, sid: string, body: string, options: Parameters<typeof twilioPost>[3] = {}) =>
  twilioPost("/providers/twilio/sms", { AccountSid: ACCOUNT_SID, MessageSid: sid, From: from, To: agency.number, Body: body, NumMedia: "0" }, undefined, options);

describe("callbacks while their agency moves", () => {
  it("answers Twilio's texts and delivery reports 2xx during a move and applies each once after it: none lost", async () => {
    const agency = await agencyWithNumber("DB");
    const contact = await createContact(agency.token, { phone: "+14155550181" });
    vi.stubGlobal("fetch", fakeTwilio().fetch);
    const sent = await sendSms(agency, contact.contact_uuid, "Your showing is at 3.");
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const outbound = sent.body.message.message_uuid as string;
    const outboundSid = (await messagesOf(agency))[0]!.provider_message_id ?? twilioSid();

    const { queue, sent: queued } = callbackQueue();
    const env = twilioEnv({ CALLBACK_QUEUE: queue });
    const move = await holdMove(agency.agencyUuid, "DB_EU");
    const [first, second] = [twilioSid(), twilioSid()];
    const answers = await Promise.all([
      text(agency, "+14155550181", first, "Can we make it 4?", { env }),
      // Twilio sending the same text again.
      text(agency, "+14155550181", first, "Can we make it 4?", { env }),
      twilioPost(`/providers/twilio/status?agency=${agency.agencyUuid}&message=${outbound}`, { MessageSid: outboundSid, MessageStatus: "delivered", AccountSid: ACCOUNT_SID }, undefined, { env }),
    ]);
    answers.push(await text(agency, "+14155550181", second, "Thanks!", { env }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 204, 200]);
    expect(answers[0]!.body).toBe(EMPTY_TWIML);
    expect(queued.map((m) => m.body.type).sort()).toEqual(["sms.delivery", "sms.received", "sms.received", "sms.received"]);
    // Nothing was written to the frozen shard meanwhile.
    expect(await messagesOf(agency)).toEqual([expect.objectContaining({ id: outbound, direction: "outbound", delivery_status: "queued" })]);

    // The consumer while the move runs: every callback waits and is tried again.
    const early = await consume(queued);
    expect(early.retried.map((r) => r.delaySeconds)).toEqual([10, 10, 10, 10]);
    const later = await consume(queued, 4);
    expect(later.retried.map((r) => r.delaySeconds)).toEqual([80, 80, 80, 80]);

    await finishHeldMove(move);
    expect((await consume(queued, 5)).retried).toEqual([]);
    expect(await shardNameOf(agency.agencyUuid)).toBe("DB_EU");
    const stored = await messagesOf(agency);
    expect(stored).toEqual([
      expect.objectContaining({ id: outbound, direction: "outbound", delivery_status: "delivered" }),
      expect.objectContaining({ direction: "inbound", body: "Can we make it 4?", provider_message_id: first, contact_id: contact.contact_uuid }),
      expect.objectContaining({ direction: "inbound", body: "Thanks!", provider_message_id: second, contact_id: contact.contact_uuid }),
    ]);
    const events = (await eventTypes(agency)).filter((t) => t.startsWith("message."));
    expect(events.sort()).toEqual(["message.received", "message.received", "message.sent", "message.updated"]);

    // The queue delivering them all again changes nothing.
    expect((await consume(queued, 6)).retried).toEqual([]);
    expect(await messagesOf(agency)).toEqual(stored);
    expect((await eventTypes(agency)).filter((t) => t.startsWith("message."))).toHaveLength(4);
    // And the partner reads the conversation on the new shard.
    const read = await api("GET", `/messages?contact_uuid=${contact.contact_uuid}`, { token: agency.token });
    expect(read.body.messages.map((m: { body: string; delivery_status: string | null }) => [m.body, m.delivery_status])).toEqual([
      ["Thanks!", null],
      ["Can we make it 4?", null],
      ["Your showing is at 3.", "delivered"],
    ]);
  });

  it("answers Vapi's end-of-call report and status update 202 during a move and applies them after a move that was rolled back: one completion, one debit", async () => {
    const { agencyUuid, token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall({ shard: "DB" });
    const { queue, sent: queued } = callbackQueue();
    const env = { ...vapiEnv, CALLBACK_QUEUE: queue };
    const move = await holdMove(agencyUuid);
    const { endedReason, startedAt, endedAt } = ENDED;
    const reported = await report(env, vapi, providerCallId);
    expect(reported.status, JSON.stringify(reported.body)).toBe(202);
    expect(reported.body).toEqual({ success: true, applied: false, queued: true });
    expect((await statusUpdate(env, vapi, providerCallId, "ended", { endedReason, startedAt, endedAt })).status).toBe(202);
    expect(queued.map((m) => m.body)).toEqual([
      expect.objectContaining({ type: "call.report", agency_id: agencyUuid, call_id: call.call_uuid, state: expect.objectContaining({ state: "ended", providerCallId }) }),
      expect.objectContaining({ type: "call.report", agency_id: agencyUuid, call_id: call.call_uuid }),
    ]);
    // The agency's reads go on during the move; the call is still in progress.
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "in-progress" });
    expect((await consume(queued)).retried).toHaveLength(2);

    await rollBackHeldMove(move);
    expect((await consume(queued, 2)).retried).toEqual([]);
    const ended = await getCall(token, call.call_uuid);
    expect(ended).toMatchObject({ status: "completed", duration_seconds: 121, summary: "Booked a showing.", cost_cents: 36, ended_reason: "customer-ended-call" });
    expect((await consume(queued, 3)).retried).toEqual([]);
    expect(await getCall(token, call.call_uuid)).toEqual(ended);
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
    expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
    expect((await eventTypes({ agencyUuid })).filter((t) => t === "call.completed")).toHaveLength(1);
  });

  it("queues a callback whose write meets the move's fence (the move began after the directory was read), and applies it once the fence lifts", async () => {
    const agency = await agencyWithNumber("DB");
    const { queue, sent: queued } = callbackQueue();
    const env = twilioEnv({ CALLBACK_QUEUE: queue });
    // The fence is up but the directory does not say so yet: the write itself is refused.
    await freezeAgency(shardDb("DB"), agency.agencyUuid, "moving", new Date().toISOString());
    const sid = twilioSid();
    const res = await text(agency, "+14155550182", sid, "Is it still for sale?", { env });
    expect(res.status).toBe(200);
    expect(queued).toHaveLength(1);
    expect(await messagesOf(agency)).toEqual([]);
    expect((await consume(queued)).retried.map((r) => r.delaySeconds)).toEqual([10]);

    await unfreezeAgency(shardDb("DB"), agency.agencyUuid);
    expect((await consume(queued, 2)).retried).toEqual([]);
    const [stored] = await messagesOf(agency);
    expect(stored).toMatchObject({ direction: "inbound", body: "Is it still for sale?", provider_message_id: sid });
    const contact = await api("GET", `/contacts/${stored!.contact_id}`, { token: agency.token });
    expect(contact.body.contact).toMatchObject({ phone: "+14155550182", source: "sms" });
    expect(await messagesOf(agency)).toHaveLength(1);
  });

  it("keeps trying a dead-lettered callback hourly, and applies it once the agency is in one place", async () => {
    const agency = await agencyWithNumber("DB");
    const { queue, sent: queued } = callbackQueue();
    const move = await holdMove(agency.agencyUuid);
    expect((await text(agency, "+14155550183", twilioSid(), "Hello?", { env: twilioEnv({ CALLBACK_QUEUE: queue }) })).status).toBe(200);
    expect((await consume(queued, 1, "provider-callbacks-dlq")).retried.map((r) => r.delaySeconds)).toEqual([3600]);
    await finishHeldMove(move);
    expect((await consume(queued, 2, "provider-callbacks-dlq")).retried).toEqual([]);
    expect(await messagesOf(agency)).toEqual([expect.objectContaining({ direction: "inbound", body: "Hello?" })]);
  });
});

describe("per-IP limits of provider callbacks", () => {
  it("answers a burst of signed Twilio callbacks from one IP beyond the limit, while unsigned ones from that IP are refused 403, then 429", async () => {
    const agency = await agencyWithNumber();
    await createContact(agency.token, { phone: "+14155550191" });
    const ip = uniqueIp();
    const burst = UNVERIFIED_LIMIT + 20;
    const sids = Array.from({ length: burst }, () => twilioSid());
    const signed = await Promise.all(sids.map((sid, i) => text(agency, "+14155550191", sid, `Text ${i}`, { ip })));
    expect(signed.filter((r) => r.status !== 200)).toEqual([]);
    expect((await messagesOf(agency)).map((m) => m.provider_message_id).sort()).toEqual([...sids].sort());

    // The same IP without a valid signature: refused, and counted.
    const forged = (i: number) =>
      twilioPost("/providers/twilio/sms", { AccountSid: ACCOUNT_SID, MessageSid: twilioSid(), From: "+14155550191", To: agency.number, Body: `Forged ${i}` }, i % 2 ? null : "bm90IHR3aWxpbw==", { ip });
    const unsigned = await Promise.all(Array.from({ length: UNVERIFIED_LIMIT + 5 }, (_, i) => forged(i)));
    expect(unsigned.filter((r) => r.status === 403)).toHaveLength(UNVERIFIED_LIMIT);
    const limited = unsigned.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    for (const res of limited) {
      expectError(res, 429, RATE_LIMITED, "rate_limited");
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    for (const res of unsigned.filter((r) => r.status === 403)) expectError(res, 403, "Invalid X-Twilio-Signature", "invalid_signature");
    // Twilio's own callbacks from that IP are still answered (and stored), the forged ones never.
    expect((await text(agency, "+14155550191", twilioSid(), "Still here", { ip })).status).toBe(200);
    expect(await messagesOf(agency)).toHaveLength(burst + 1);
  });

  it("answers a burst of Vapi messages with the secret from one IP beyond the limit, while those without it are limited", async () => {
    const { token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    const ip = uniqueIp();
    const update = { type: "status-update", status: "in-progress", call: vapi.calls.get(providerCallId) };
    const genuine = await Promise.all(Array.from({ length: UNVERIFIED_LIMIT + 10 }, () => vapiMessage(vapiEnv, vapi, providerCallId, update, { ip })));
    expect(genuine.filter((r) => r.status !== 200)).toEqual([]);
    const wrong = await Promise.all(Array.from({ length: UNVERIFIED_LIMIT + 3 }, (_, i) => vapiMessage(vapiEnv, vapi, providerCallId, update, { ip, secret: i % 2 ? null : "guess" })));
    expect(wrong.filter((r) => r.status === 403)).toHaveLength(UNVERIFIED_LIMIT);
    expect(wrong.filter((r) => r.status === 429)).toHaveLength(3);
    const reported = await report(vapiEnv, vapi, providerCallId);
    expect(reported.body).toEqual({ success: true, applied: true });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", cost_cents: 36 });
  });
});

describe("Vapi status-update", () => {
  it("ends the call when it says how it ended, as the poll would: charged once; a late in-progress never reopens it, and the report adds its summary", async () => {
    const { agencyUuid, token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
    const { endedReason, startedAt, endedAt } = ENDED;
    const ended = await statusUpdate(vapiEnv, vapi, providerCallId, "ended", { endedReason, startedAt, endedAt });
    expect(ended.body).toEqual({ success: true, applied: true });
    expect(await getCall(token, call.call_uuid)).toMatchObject({
      status: "completed",
      ended_reason: "customer-ended-call",
      started_at: startedAt,
      ended_at: endedAt,
      duration_seconds: 121,
      cost_cents: 36,
      summary: null,
    });
    expect((await statusUpdate(vapiEnv, vapi, providerCallId, "in-progress")).body).toEqual({ success: true, applied: false });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", cost_cents: 36 });

    expect((await report(vapiEnv, vapi, providerCallId)).body).toEqual({ success: true, applied: true });
    expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", duration_seconds: 121, cost_cents: 36, summary: "Booked a showing." });
    expect((await report(vapiEnv, vapi, providerCallId)).body).toEqual({ success: true, applied: false });
    expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
    expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
    // The end once, then the summary it lacked.
    const events = await eventTypes({ agencyUuid });
    expect(events.slice(events.indexOf("call.started") + 1)).toEqual(["call.completed", "call.updated"]);
  });

  it("fails an unanswered call uncharged, and leaves an ended call that does not say when it started to the report", async () => {
    const unanswered = await dialedVapiCall();
    const noAnswer = await statusUpdate(unanswered.vapiEnv, unanswered.vapi, unanswered.providerCallId, "ended", { endedReason: "customer-did-not-answer" });
    expect(noAnswer.body).toEqual({ success: true, applied: true });
    expect(await getCall(unanswered.token, unanswered.call.call_uuid)).toMatchObject({ status: "failed", ended_reason: "customer-did-not-answer", cost_cents: 0 });
    expect(await ledgerOf(unanswered.call.call_uuid)).toEqual([]);

    const talked = await dialedVapiCall();
    const vague = await statusUpdate(talked.vapiEnv, talked.vapi, talked.providerCallId, "ended", { endedReason: "customer-ended-call" });
    expect(vague.body).toEqual({ success: true, applied: true });
    expect(await getCall(talked.token, talked.call.call_uuid)).toMatchObject({ status: "in-progress", cost_cents: null });
    expect((await report(talked.vapiEnv, talked.vapi, talked.providerCallId)).body).toEqual({ success: true, applied: true });
    expect(await getCall(talked.token, talked.call.call_uuid)).toMatchObject({ status: "completed", cost_cents: 36, summary: "Booked a showing." });
  });

  it("ends the call once when a status update, the poll, the report and a late in-progress update arrive at once: one state, one debit", async () => {
    const { endedReason, startedAt, endedAt } = ENDED;
    for (let round = 0; round < 4; round++) {
      const { agencyUuid, token, call, vapi, vapiEnv, providerCallId } = await dialedVapiCall();
      vapi.end(providerCallId, ENDED);
      const [update, , reported, late] = await Promise.all([
        statusUpdate(vapiEnv, vapi, providerCallId, "ended", { endedReason, startedAt, endedAt }),
        deliver([{ body: poll(call.call_uuid) }], { env: vapiEnv }),
        report(vapiEnv, vapi, providerCallId),
        statusUpdate(vapiEnv, vapi, providerCallId, "in-progress"),
      ]);
      expect([update.status, reported.status, late.status]).toEqual([200, 200, 200]);
      expect(await getCall(token, call.call_uuid)).toMatchObject({ status: "completed", duration_seconds: 121, cost_cents: 36, summary: "Booked a showing." });
      expect(await ledgerOf(call.call_uuid)).toEqual([{ type: "call_debit", amount_cents: -36, call_id: call.call_uuid }]);
      expect((await getWallet(token)).balance_cents).toBe(5000 - 36);
      expect((await eventTypes({ agencyUuid })).filter((t) => t === "call.completed")).toHaveLength(1);
    }
  });
});

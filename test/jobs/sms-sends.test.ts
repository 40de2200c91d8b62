import { afterEach, describe, expect, it, vi } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import type { Env } from "@/env";
import { freezeAgency, unfreezeAgency } from "@/db/agency-copy";
import { ATTEMPT_LEASE_SECONDS, RESEND_AFTER_SECONDS, SEND_WINDOW_SECONDS, SMS_DLQ_NAME, type SmsMessage } from "@/lib/queues/sms-message";
import { api, BASE } from "../helpers/http";
import { createContact } from "../helpers/path-factories";
import { restoreClock, setClock } from "../helpers/clock";
import { fetchWithEnv, recordingQueue } from "../helpers/voice-factories";
import { deliver, runCron } from "../helpers/voice-queue";
import { dbOf } from "../helpers/shards";
import { agencyWithNumber, AUTH_TOKEN, fakeTwilio, PUBLIC, twilioEnv, type TwilioAnswer } from "../helpers/providers";
import { getMessage, sendRow, smsSend } from "../helpers/sms-queue";

afterEach(() => {
  vi.unstubAllGlobals();
  restoreClock();
});

/**
 * A Twilio deployment whose `sms-sends` queue records what is sent instead of delivering it, so
 * the test hands each message to the consumer itself, at the time it is due.
 */
async function twilioSetup(script: TwilioAnswer[] = [], options: Parameters<typeof fakeTwilio>[1] = {}, phone = "+14155550181") {
  const agency = await agencyWithNumber();
  const contact = await createContact(agency.token, { phone });
  const twilio = fakeTwilio(script, options);
  vi.stubGlobal("fetch", twilio.fetch);
  const queue = recordingQueue<SmsMessage>();
  const env = twilioEnv({ SMS_QUEUE: queue.queue });
  return { agency, contact, twilio, queue, env };
}

/** POST /messages with `channel: sms`, on `env`; expects the 201. */
async function postSms(env: Env, token: string, contactUuid: string, body = "Your showing is at 10am Saturday.") {
  const res = await fetchWithEnv(
    env,
    new Request(`${BASE}/api/v2/messages`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ contact_uuid: contactUuid, channel: "sms", body }),
    }),
  );
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.message as Record<string, any>;
}

/** Hands the queue's latest message to the consumer at the time it is due (the clock moves there); returns that time. */
async function deliverNext(env: Env, queue: ReturnType<typeof recordingQueue<SmsMessage>>, at: number) {
  const next = queue.sent.at(-1)!;
  const due = at + (next.delaySeconds ?? 0) * 1000;
  setClock(due);
  const { ids, result } = await deliver([{ body: next.body }], { env, queue: "sms-sends" });
  expect(result.explicitAcks).toEqual(ids);
  return due;
}

/** The message events of one message, oldest first: type and the status it carried. */
async function eventsOf(token: string, messageUuid: string) {
  const res = await api("GET", "/events?limit=100", { token });
  expect(res.status).toBe(200);
  return (res.body.events as any[])
    .filter((e) => e.data.object.message_uuid === messageUuid)
    .reverse()
    .map((e) => [e.type, e.data.object.delivery_status] as const);
}

describe("sms-sends consumer, against a fake Twilio", () => {
  it("answers 201 queued, then through a 500, a 429 and a timeout sends exactly one text: queued -> sent, events in order", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(["500", "429", "timeout", "accept"]);
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    expect(message).toMatchObject({ channel: "sms", direction: "outbound", delivery_status: "queued", delivery_error: null });
    expect(twilio.requests).toEqual([]);
    expect(queue.sent).toEqual([{ body: smsSend(message.message_uuid, agency.agencyUuid), delaySeconds: 0 }]);

    let at = start;
    for (let attempt = 1; attempt <= 4; attempt++) at = await deliverNext(env, queue, at);

    // Backoff of 10 s after the 500; Twilio's Retry-After (30 s) over our 20 s after the 429; 40 s after the timeout.
    expect(queue.sent.map((m) => m.delaySeconds)).toEqual([0, 10, 30, 40]);
    // A 5xx or a timeout may have created the message: the next attempt looks first.
    expect(twilio.requests.map((r) => r.method)).toEqual(["POST", "GET", "POST", "POST", "GET", "POST"]);
    expect(twilio.created).toHaveLength(1);
    expect(twilio.created[0]).toMatchObject({ to: "+14155550181", from: agency.number, body: "Your showing is at 10am Saturday." });
    expect(twilio.posts().every((r) => r.form.StatusCallback === `${PUBLIC}/providers/twilio/status?agency=${agency.agencyUuid}&message=${message.message_uuid}`)).toBe(true);

    expect(await getMessage(agency.token, message.message_uuid)).toEqual({ ...message, delivery_status: "sent" });
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "sent"],
    ]);
    expect(await sendRow(message.message_uuid)).toMatchObject({
      provider_message_id: twilio.created[0]!.sid,
      send_attempts: 4,
      send_first_attempt_at: new Date(start).toISOString(),
      send_next_attempt_at: null,
      send_in_flight: 0,
      send_lookup_needed: 0,
    });
    // A late duplicate of any of its queue messages sends nothing.
    await deliver(queue.sent.map((m) => ({ body: m.body })), { env, queue: "sms-sends" });
    expect(twilio.posts()).toHaveLength(4);
  });

  it("finds a text whose answer was lost at Twilio and does not send it again; its status callback then makes it delivered", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(["lost"]);
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    let at = await deliverNext(env, queue, start);
    // Twilio has it, but we could not know: still queued, to be looked up.
    expect(twilio.created).toHaveLength(1);
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "queued", provider_message_id: null, send_lookup_needed: 1, send_in_flight: 0 });
    at = await deliverNext(env, queue, at);
    expect(twilio.requests.map((r) => r.method)).toEqual(["POST", "GET"]);
    expect(twilio.created).toHaveLength(1);
    const sid = twilio.created[0]!.sid;
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "sent", provider_message_id: sid, send_next_attempt_at: null });
    expect(queue.sent).toHaveLength(2);

    setClock(at + 1_000);
    const callback = new URL(twilio.posts()[0]!.form.StatusCallback!);
    const params = { MessageSid: sid, MessageStatus: "delivered", AccountSid: twilio.created[0]!.account_sid, To: "+14155550181", From: agency.number };
    const report = await fetchWithEnv(
      env,
      new Request(`${BASE}${callback.pathname}${callback.search}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": getExpectedTwilioSignature(AUTH_TOKEN, callback.toString(), params) },
        body: new URLSearchParams(params).toString(),
      }),
    );
    expect(report.status).toBe(204);
    expect((await getMessage(agency.token, message.message_uuid)).delivery_status).toBe("delivered");
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "sent"],
      ["message.updated", "delivered"],
    ]);
  });

  it("settles a lost answer by Twilio's status callback when it comes first: the next attempt neither looks up nor sends", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(["lost", "lost"]);
    const start = Date.now();
    setClock(start);
    const report = (message: Record<string, any>, MessageStatus: string) => {
      const callback = new URL(twilio.posts().at(-1)!.form.StatusCallback!);
      const params = { MessageSid: twilio.created.at(-1)!.sid, MessageStatus, AccountSid: twilio.created.at(-1)!.account_sid, From: agency.number };
      expect(callback.searchParams.get("message")).toBe(message.message_uuid);
      return fetchWithEnv(
        env,
        new Request(`${BASE}${callback.pathname}${callback.search}`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": getExpectedTwilioSignature(AUTH_TOKEN, callback.toString(), params) },
          body: new URLSearchParams(params).toString(),
        }),
      );
    };
    // Reported `sent`: the message is settled, and its next attempt finds nothing to do.
    const first = await postSms(env, agency.token, contact.contact_uuid, "First");
    let at = await deliverNext(env, queue, start);
    expect((await report(first, "sent")).status).toBe(204);
    at = await deliverNext(env, queue, at);
    expect(await sendRow(first.message_uuid)).toMatchObject({ delivery_status: "sent", provider_message_id: twilio.created[0]!.sid, send_in_flight: 0, send_next_attempt_at: null });
    // Reported `queued` (Twilio has it, not yet sent): its next attempt records it `sent`.
    const second = await postSms(env, agency.token, contact.contact_uuid, "Second");
    at = await deliverNext(env, queue, at);
    expect((await report(second, "queued")).status).toBe(204);
    expect(await sendRow(second.message_uuid)).toMatchObject({ delivery_status: "queued", provider_message_id: twilio.created[1]!.sid });
    await deliverNext(env, queue, at);
    expect(await sendRow(second.message_uuid)).toMatchObject({ delivery_status: "sent", send_next_attempt_at: null, send_lookup_needed: 0 });
    expect(twilio.requests.map((r) => r.method)).toEqual(["POST", "POST"]);
    expect(twilio.created).toHaveLength(2);
  });

  it("does not take an earlier text with the same body to the same person for a lost one", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(["accept", "lost"]);
    const start = Date.now();
    setClock(start);
    const first = await postSms(env, agency.token, contact.contact_uuid, "See you soon!");
    await deliverNext(env, queue, start);
    expect((await sendRow(first.message_uuid)).provider_message_id).toBe(twilio.created[0]!.sid);

    // The same words again a minute later, and its answer is lost (Twilio has it): both texts
    // match the look-up, and the first's is recorded on the first message.
    setClock(start + 60_000);
    const second = await postSms(env, agency.token, contact.contact_uuid, "See you soon!");
    await deliverNext(env, queue, await deliverNext(env, queue, start + 60_000));
    // The look-up found the second's own text, not the first's.
    expect(twilio.created).toHaveLength(2);
    expect(await sendRow(second.message_uuid)).toMatchObject({ delivery_status: "sent", provider_message_id: twilio.created[1]!.sid });
    expect(twilio.requests.map((r) => r.method)).toEqual(["POST", "POST", "GET"]);
  });

  it("sends once when the same queue message is delivered twice at once, twice in a batch, and again later", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup();
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    const send = { body: queue.sent[0]!.body };
    setClock(start + 1_000);
    await Promise.all([deliver([send], { env, queue: "sms-sends" }), deliver([send], { env, queue: "sms-sends" }), deliver([send, send], { env, queue: "sms-sends" })]);
    await deliver([{ ...send, attempts: 2 }], { env, queue: "sms-sends" });
    expect(twilio.posts()).toHaveLength(1);
    expect(twilio.created).toHaveLength(1);
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "sent", send_attempts: 1 });
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "sent"],
    ]);
  });

  it("ends a text Twilio refuses for good (an invalid number) failed at once, with Twilio's code in delivery_error", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup([], {}, "+15005550001");
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    await deliverNext(env, queue, start + 1_000);
    expect(queue.sent).toHaveLength(1);
    expect(twilio.posts()).toHaveLength(1);
    expect(await getMessage(agency.token, message.message_uuid)).toEqual({
      ...message,
      delivery_status: "failed",
      delivery_error: "21211 The 'To' number +15005550001 is not a valid phone number.",
    });
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "failed"],
    ]);
  });

  it("retries for an hour after the first attempt, then ends failed with delivery_error, having sent nothing", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(Array.from({ length: 40 }, () => "503" as const));
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    let at = start;
    const attempts: number[] = [];
    while (queue.sent.length > attempts.length) {
      at = await deliverNext(env, queue, at);
      attempts.push(at - start);
    }
    // 10 s, 20 s, 40 s, ... then every 5 minutes, the last within the hour.
    expect(attempts.slice(0, 6)).toEqual([0, 10_000, 30_000, 70_000, 150_000, 310_000]);
    expect(attempts.at(-1)!).toBeLessThanOrEqual(SEND_WINDOW_SECONDS * 1000);
    expect(attempts.at(-1)! + 300_000).toBeGreaterThan(SEND_WINDOW_SECONDS * 1000);
    expect(twilio.posts()).toHaveLength(attempts.length);
    expect(twilio.created).toHaveLength(0);
    expect(await getMessage(agency.token, message.message_uuid)).toEqual({
      ...message,
      delivery_status: "failed",
      delivery_error: `20503 Service unavailable (given up after ${attempts.length} attempts in the hour after the first)`,
    });
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "failed"],
    ]);
  });

  it("retries a dropped connection and a timeout as well, then sends", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup(["reset", "timeout"]);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    let at = Date.now();
    for (let i = 0; i < 3; i++) at = await deliverNext(env, queue, at);
    expect(twilio.created).toHaveLength(1);
    expect((await getMessage(agency.token, message.message_uuid)).delivery_status).toBe("sent");
  });
});

describe("sms sweep", () => {
  it("enqueues a stored SMS whose queue send failed, once, and it is sent", async () => {
    const { agency, contact, twilio, env } = await twilioSetup();
    const failing = twilioEnv({ SMS_QUEUE: recordingQueue<SmsMessage>({ failing: true }).queue });
    const start = Date.now();
    setClock(start);
    const message = await postSms(failing, agency.token, contact.contact_uuid);
    expect(message.delivery_status).toBe("queued");

    const swept = recordingQueue<SmsMessage>();
    const sweepEnv = { ...env, SMS_QUEUE: swept.queue };
    await runCron(start + 60_000, sweepEnv);
    expect(swept.sent.filter((m) => m.body.message_id === message.message_uuid)).toEqual([]);
    await runCron(start + (RESEND_AFTER_SECONDS + 60) * 1000, sweepEnv);
    const mine = () => swept.sent.filter((m) => m.body.message_id === message.message_uuid);
    expect(mine()).toEqual([{ body: smsSend(message.message_uuid, agency.agencyUuid), delaySeconds: 0 }]);
    // The next run does not send it again while it is due afresh.
    await runCron(start + (RESEND_AFTER_SECONDS + 120) * 1000, sweepEnv);
    expect(mine()).toHaveLength(1);

    setClock(start + (RESEND_AFTER_SECONDS + 120) * 1000);
    await deliver([{ body: mine()[0]!.body }], { env: sweepEnv, queue: "sms-sends" });
    expect(twilio.created).toHaveLength(1);
    expect((await getMessage(agency.token, message.message_uuid)).delivery_status).toBe("sent");
  });

  it("recovers an attempt whose consumer died after Twilio took the text: the lease runs out, the sweep re-enqueues it, the look-up finds it", async () => {
    let agencyUuid = "";
    // A move fences the agency off right after Twilio took the text: the consumer cannot record it.
    const { agency, contact, twilio, queue, env } = await twilioSetup([], { onCreate: async () => void (await freezeAgency(await dbOf(agencyUuid), agencyUuid, "moving", new Date().toISOString())) });
    agencyUuid = agency.agencyUuid;
    const start = Date.now();
    setClock(start);
    const message = await postSms(env, agency.token, contact.contact_uuid);
    const crashed = await deliver([{ body: queue.sent[0]!.body }], { env, queue: "sms-sends" });
    expect(crashed.retried).toHaveLength(1);
    await unfreezeAgency(await dbOf(agencyUuid), agencyUuid);
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "queued", send_in_flight: 1, send_attempts: 1 });

    // The queue's own retry of the crash finds the attempt still leased: nothing is sent.
    setClock(start + 20_000);
    await deliver([{ body: queue.sent[0]!.body, attempts: 2 }], { env, queue: "sms-sends" });
    expect(twilio.posts()).toHaveLength(1);

    const swept = recordingQueue<SmsMessage>();
    const sweepEnv = { ...env, SMS_QUEUE: swept.queue };
    const sweptAt = start + (ATTEMPT_LEASE_SECONDS + RESEND_AFTER_SECONDS + 60) * 1000;
    await runCron(sweptAt, sweepEnv);
    const resent = swept.sent.filter((m) => m.body.message_id === message.message_uuid);
    expect(resent).toHaveLength(1);
    setClock(sweptAt);
    await deliver([{ body: resent[0]!.body }], { env: sweepEnv, queue: "sms-sends" });
    expect(twilio.requests.map((r) => r.method)).toEqual(["POST", "GET"]);
    expect(twilio.created).toHaveLength(1);
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "sent", provider_message_id: twilio.created[0]!.sid, send_attempts: 2 });
  });

  it("gives up an SMS that never got an attempt hours after it was stored: failed, with its event", async () => {
    const { agency, contact, env } = await twilioSetup();
    const failing = twilioEnv({ SMS_QUEUE: recordingQueue<SmsMessage>({ failing: true }).queue });
    const start = Date.now();
    setClock(start);
    const message = await postSms(failing, agency.token, contact.contact_uuid);
    setClock(start + 2 * 3_600_000 + 60_000);
    await runCron(start + 2 * 3_600_000 + 60_000, { ...env, SMS_QUEUE: recordingQueue<SmsMessage>().queue });
    restoreClock();
    expect(await getMessage(agency.token, message.message_uuid)).toMatchObject({ delivery_status: "failed", delivery_error: "Not sent: our sending job could not finish it" });
    expect(await eventsOf(agency.token, message.message_uuid)).toEqual([
      ["message.sent", "queued"],
      ["message.updated", "failed"],
    ]);
  });

  it("leaves a dead-lettered send stored and due, for the sweep", async () => {
    const { agency, contact, twilio, queue, env } = await twilioSetup();
    const message = await postSms(env, agency.token, contact.contact_uuid);
    const { ids, result } = await deliver([{ body: queue.sent[0]!.body }], { env, queue: SMS_DLQ_NAME });
    expect(result.explicitAcks).toEqual(ids);
    expect(twilio.requests).toEqual([]);
    expect(await sendRow(message.message_uuid)).toMatchObject({ delivery_status: "queued", send_attempts: 0 });
  });
});

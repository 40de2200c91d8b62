import { expect, vi } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import type { Env } from "@/env";
import { admin, BASE } from "./http";
import { setupAgency, setupAgencyOn, type TestAgency } from "./factories";
import { dbOf } from "./shards";
import { createCall, createVoiceAgent, envWith, fetchWithEnv, recordingQueue, setupVoiceAgency } from "./voice-factories";
import { deliver, dial } from "./voice-queue";

/**
 * Fakes of Twilio and Vapi that speak their wire formats, and the callbacks they send back:
 * Twilio's signed with Twilio's own helper, Vapi's with the secret the call asked for.
 */

export const PUBLIC = "https://partner.test";
export const ACCOUNT_SID = "AC00000000000000000000000000000001";
export const AUTH_TOKEN = "twilio-test-auth-token";
export const TWILIO_URL = "https://twilio.test";
export const VAPI_URL = "https://vapi.test";
export const VAPI_KEY = "vapi-test-key";
export const VAPI_SECRET = "vapi-webhook-secret";

/** A deployment whose SMS go through Twilio (and any other overrides, such as a recording CALLBACK_QUEUE). */
export const twilioEnv = (overrides: Partial<Env> = {}) =>
  envWith({ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_BASE_URL: TWILIO_URL, PUBLIC_BASE_URL: PUBLIC, ...overrides });

/** Any request to the Worker with a custom env, from `ip` when given. */
export async function send(customEnv: Env, path: string, init: RequestInit & { token?: string; ip?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  if (init.ip) headers.set("CF-Connecting-IP", init.ip);
  const res = await fetchWithEnv(customEnv, new Request(`${BASE}${path}`, { ...init, headers }));
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // TwiML or empty
  }
  return { status: res.status, headers: res.headers, body };
}

/** POST /messages with `channel: sms`, on a deployment whose SMS go through Twilio. */
export const sendSms = (agency: TestAgency, contactUuid: string, body: string) =>
  send(twilioEnv(), "/api/v2/messages", {
    method: "POST",
    token: agency.token,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ contact_uuid: contactUuid, channel: "sms", body }),
  });

/**
 * A form Twilio posts to `path`, signed by Twilio's own helper (or with `signature` instead; null
 * sends none), to the Worker with `options.env` (twilioEnv() by default), from `options.ip`.
 */
export function twilioPost(path: string, params: Record<string, string>, signature?: string | null, options: { env?: Env; ip?: string } = {}) {
  const url = `${PUBLIC}${path}`;
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  const signed = signature === undefined ? getExpectedTwilioSignature(AUTH_TOKEN, url, params) : signature;
  if (signed !== null) headers["X-Twilio-Signature"] = signed;
  return send(options.env ?? twilioEnv(), path, { method: "POST", headers, body: new URLSearchParams(params).toString(), ip: options.ip });
}

/** The path and query of a StatusCallback URL, as Twilio requests it. */
export const statusPath = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** A Twilio message id, as Twilio makes them. */
export const twilioSid = () => `SM${crypto.randomUUID().replaceAll("-", "")}`;

let numberCounter = 0;

/** A fresh agency (on `shard` when given) with its SMS sender number. */
export async function agencyWithNumber(shard?: string): Promise<TestAgency & { number: string }> {
  const agency = shard ? await setupAgencyOn(shard) : await setupAgency();
  const number = `+1415777${String(1000 + ++numberCounter).slice(-4)}`;
  const res = await admin("PUT", `/agencies/${agency.agencyUuid}/sms-number`, { number });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.agency.sms_number).toBe(number);
  return { ...agency, number };
}

/** A fake of Twilio's Messages API: its request format and its answers. */
export function fakeTwilio() {
  const requests: { url: string; authorization: string | null; form: Record<string, string> }[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const form = Object.fromEntries(new URLSearchParams(await request.text()));
    requests.push({ url: request.url, authorization: request.headers.get("Authorization"), form });
    if (request.headers.get("Authorization") !== `Basic ${btoa(`${ACCOUNT_SID}:${AUTH_TOKEN}`)}`) {
      return Response.json({ code: 20003, message: "Authenticate", more_info: "https://www.twilio.com/docs/errors/20003", status: 401 }, { status: 401 });
    }
    if (form.To === "+15005550001") {
      return Response.json(
        { code: 21211, message: `The 'To' number ${form.To} is not a valid phone number.`, more_info: "https://www.twilio.com/docs/errors/21211", status: 400 },
        { status: 400 },
      );
    }
    const sid = twilioSid();
    return Response.json(
      { sid, account_sid: ACCOUNT_SID, from: form.From, to: form.To, body: form.Body, status: "queued", error_code: null, error_message: null, num_segments: "1" },
      { status: 201 },
    );
  };
  return { fetch: fetcher, requests };
}

/** The agency's messages, read where the directory places it now. */
export async function messagesOf(agency: Pick<TestAgency, "agencyUuid">) {
  const db = await dbOf(agency.agencyUuid);
  return (
    await db
      .prepare("SELECT id, contact_id, direction, body, delivery_status, delivery_error, provider_message_id FROM messages WHERE agency_id = ? ORDER BY created_at")
      .bind(agency.agencyUuid)
      .all<Record<string, string | null>>()
  ).results;
}

/** The types of the agency's events, oldest first, read where the directory places it now. */
export async function eventTypes(agency: Pick<TestAgency, "agencyUuid">) {
  const db = await dbOf(agency.agencyUuid);
  return (await db.prepare("SELECT type FROM events WHERE agency_id = ? ORDER BY created_at, rowid").bind(agency.agencyUuid).all<{ type: string }>()).results.map((r) => r.type);
}

// ---------------------------------------------------------------------------------------
// Vapi: the fake upstream of voice-dispatch.test.ts, and server messages posted back.

export function fakeVapi() {
  const calls = new Map<string, Record<string, unknown>>();
  const requests: { method: string; body: any }[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.method === "POST" ? ((await request.json()) as Record<string, unknown>) : undefined;
    requests.push({ method: request.method, body });
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/call") {
      const call = { id: `vapi-${crypto.randomUUID()}`, status: "queued", ...body };
      calls.set(call.id, call);
      return Response.json(call, { status: 201 });
    }
    const match = /^\/call\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && match && calls.has(match[1]!)) return Response.json(calls.get(match[1]!));
    return Response.json({ message: "Not Found" }, { status: 404 });
  };
  const end = (id: string, fields: Record<string, unknown>) => calls.set(id, { ...(calls.get(id) ?? {}), status: "ended", ...fields });
  return { fetch: fetcher, calls, requests, end };
}

export type FakeVapi = ReturnType<typeof fakeVapi>;

/** How the calls of these tests end: a conversation of two minutes and one second (36 cents: three started minutes at 12 cents). */
export const ENDED = { endedReason: "customer-ended-call", startedAt: "2026-11-21T15:00:00.000Z", endedAt: "2026-11-21T15:02:01.000Z", analysis: { summary: "Booked a showing." } };

/** A call of a fresh voice agency (on `shard` when given) dialed through the fake Vapi, now `in-progress`. */
export async function dialedVapiCall(options: { shard?: string } = {}) {
  const { agencyUuid, token } = await setupVoiceAgency({ shard: options.shard });
  const agent = await createVoiceAgent(agencyUuid, { name: "Vapi Ava", provider_agent_id: "asst_live", phone_numbers: [{ number: `+1212555${String(2000 + ++numberCounter).slice(-4)}`, provider_number_id: "pn_live" }] });
  const call = await createCall(token, { delay_seconds: 3600, voice_agent_uuid: agent.agent_uuid });
  const vapi = fakeVapi();
  vi.stubGlobal("fetch", vapi.fetch);
  const vapiEnv = envWith({
    VOICE_PROVIDER: "vapi",
    VAPI_API_KEY: VAPI_KEY,
    VAPI_BASE_URL: VAPI_URL,
    VAPI_WEBHOOK_SECRET: VAPI_SECRET,
    PUBLIC_BASE_URL: PUBLIC,
    CALL_QUEUE: recordingQueue().queue,
  });
  await deliver([{ body: dial(call.call_uuid) }], { env: vapiEnv });
  const providerCallId = [...vapi.calls.keys()][0]!;
  return { agencyUuid, token, call, vapi, vapiEnv, providerCallId };
}

/** The path of a call's server URL, as the call asked Vapi to post to (query included). */
export const serverPath = (vapi: FakeVapi, providerCallId: string) => {
  const url = new URL((vapi.calls.get(providerCallId)!.assistantOverrides as { server: { url: string } }).server.url);
  return `${url.pathname}${url.search}`;
};

/** A server message Vapi posts about the call it placed, with our secret (or `secret`; null sends none), from `ip`. */
export const vapiMessage = (vapiEnv: Env, vapi: FakeVapi, providerCallId: string, message: Record<string, unknown>, options: { secret?: string | null; ip?: string } = {}) =>
  send(vapiEnv, serverPath(vapi, providerCallId), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(options.secret === null ? {} : { "x-vapi-secret": options.secret ?? VAPI_SECRET }) },
    body: JSON.stringify({ message }),
    ip: options.ip,
  });

/** The end-of-call report Vapi posts, for the call it placed. */
export const report = (vapiEnv: Env, vapi: FakeVapi, providerCallId: string, secret: string | null = VAPI_SECRET) =>
  vapiMessage(vapiEnv, vapi, providerCallId, { type: "end-of-call-report", ...ENDED, call: { ...vapi.calls.get(providerCallId), status: "ended" } }, { secret });

/** A `status-update` Vapi posts when the call's status changes (`fields` for `endedReason` and the call's times). */
export const statusUpdate = (vapiEnv: Env, vapi: FakeVapi, providerCallId: string, status: string, fields: Record<string, unknown> = {}) =>
  vapiMessage(vapiEnv, vapi, providerCallId, {
    type: "status-update",
    status,
    ...(fields.endedReason ? { endedReason: fields.endedReason } : {}),
    call: { ...vapi.calls.get(providerCallId), status, ...fields },
  });

/** A text from `from` to the agency's number, as Twilio posts it (a fresh MessageSid unless given). */
export const inboundText = (agency: { number: string }, from: string, body: string, options: { sid?: string; env?: Env } = {}) =>
  twilioPost(
    "/providers/twilio/sms",
    { AccountSid: ACCOUNT_SID, MessageSid: options.sid ?? twilioSid(), From: from, To: agency.number, NumMedia: "0", Body: body },
    undefined,
    { env: options.env },
  );

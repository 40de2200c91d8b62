import { expect, vi } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import type { Env } from "@/env";
import type { SmsMessage } from "@/lib/queues/sms-message";
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

/**
 * The `sms-sends` queue of a Twilio deployment, recording: a test hands the consumer its messages
 * (sendQueued), so the local queue's own consumer, which runs on the test bindings' simulator,
 * never races it.
 */
const smsQueue = recordingQueue<SmsMessage>();
export const smsEnv = () => twilioEnv({ SMS_QUEUE: smsQueue.queue });

/** POST /messages with `channel: sms`, on a deployment whose SMS go through Twilio; its queue message is kept for `sendQueued`. */
export const sendSms = (agency: TestAgency, contactUuid: string, body: string) =>
  send(smsEnv(), "/api/v2/messages", {
    method: "POST",
    token: agency.token,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ contact_uuid: contactUuid, channel: "sms", body }),
  });

/** Hands the `sms-sends` consumer the queue message of each SMS stored since the last call, as the queue would. */
export async function sendQueued() {
  const messages = smsQueue.sent.splice(0).map((m) => ({ body: m.body }));
  if (messages.length > 0) await deliver(messages, { env: smsEnv(), queue: "sms-sends" });
  return messages.length;
}

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

/**
 * A local fake of Twilio's Messages API, speaking its wire format
 * (https://www.twilio.com/docs/messaging/api/message-resource): HTTP Basic auth with the account
 * SID and auth token; `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` form-encoded (`To`,
 * `From`, `Body`, `StatusCallback`) answering 201 with the message resource (RFC 2822 dates,
 * `status: queued`, `direction: outbound-api`); `GET` of the same path with `To`, `From` and
 * `PageSize` answering a page `{ messages, next_page_uri, ... }`, newest first; errors as
 * Twilio's error JSON `{ code, message, more_info, status }`. Each POST takes the next answer of
 * its script (then `accept`), so a test scripts what Twilio does to each attempt.
 */

/**
 * What Twilio does with one POST:
 * - `accept`: stores the message and answers 201;
 * - `500`, `503`: a server error, nothing stored;
 * - `429`: Twilio's 20429 "Too Many Requests" with `Retry-After: 30`, nothing stored;
 * - `timeout`: no answer (fetch rejects with a TimeoutError, as AbortSignal.timeout makes it), nothing stored;
 * - `lost`: stores the message, but its answer never arrives (a TimeoutError);
 * - `reset`: the connection drops before the request is read (a network error), nothing stored.
 */
export type TwilioAnswer = "accept" | "500" | "503" | "429" | "timeout" | "lost" | "reset";

export interface TwilioMessage {
  sid: string;
  account_sid: string;
  api_version: string;
  to: string;
  from: string;
  body: string;
  status: string;
  direction: string;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
  error_code: number | null;
  error_message: string | null;
  num_segments: string;
  num_media: string;
  price: string | null;
  price_unit: string;
  messaging_service_sid: string | null;
  uri: string;
  subresource_uris: { media: string };
}

/** Twilio's date format: RFC 2822 with a numeric zone. */
const rfc2822 = (ms: number) => new Date(ms).toUTCString().replace("GMT", "+0000");

const twilioError = (status: number, code: number, message: string, headers?: Record<string, string>) =>
  Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status, headers });

const timeout = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");

export function fakeTwilio(script: TwilioAnswer[] = [], options: { onCreate?: (message: TwilioMessage) => Promise<void> | void } = {}) {
  const plan = [...script];
  /** Every request, in order. */
  const requests: { method: string; url: string; authorization: string | null; form: Record<string, string> }[] = [];
  /** The messages Twilio holds: each one a text sent to a person. */
  const created: TwilioMessage[] = [];
  const path = `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`;

  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const form = request.method === "POST" ? Object.fromEntries(new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer()))) : {};
    requests.push({ method: request.method, url: request.url, authorization: request.headers.get("Authorization"), form });
    if (url.origin !== TWILIO_URL || url.pathname !== path) return twilioError(404, 20404, "The requested resource was not found");
    if (request.headers.get("Authorization") !== `Basic ${btoa(`${ACCOUNT_SID}:${AUTH_TOKEN}`)}`) return twilioError(401, 20003, "Authenticate");

    if (request.method === "GET") {
      const to = url.searchParams.get("To");
      const from = url.searchParams.get("From");
      const pageSize = Number(url.searchParams.get("PageSize") ?? 50);
      const matching = created.filter((m) => (!to || m.to === to) && (!from || m.from === from)).reverse();
      return Response.json({
        messages: matching.slice(0, pageSize),
        end: Math.min(matching.length, pageSize) - 1,
        first_page_uri: `${path}?${url.searchParams}&Page=0`,
        next_page_uri: null,
        page: 0,
        page_size: pageSize,
        previous_page_uri: null,
        start: 0,
        uri: `${path}?${url.searchParams}`,
      });
    }

    const answer = plan.shift() ?? "accept";
    if (answer === "reset") throw new TypeError("Network connection lost.");
    if (answer === "timeout") throw timeout();
    if (answer === "500") return twilioError(500, 20500, "An internal server error has occurred");
    if (answer === "503") return twilioError(503, 20503, "Service unavailable");
    if (answer === "429") return twilioError(429, 20429, "Too Many Requests", { "Retry-After": "30" });
    if (!form.To || !form.Body || !form.From) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (form.To === "+15005550001") return twilioError(400, 21211, `The 'To' number ${form.To} is not a valid phone number.`);
    const sid = `SM${crypto.randomUUID().replaceAll("-", "")}`;
    const now = rfc2822(Date.now());
    const message: TwilioMessage = {
      sid,
      account_sid: ACCOUNT_SID,
      api_version: "2010-04-01",
      to: form.To,
      from: form.From,
      body: form.Body,
      status: "queued",
      direction: "outbound-api",
      date_created: now,
      date_updated: now,
      date_sent: null,
      error_code: null,
      error_message: null,
      num_segments: "1",
      num_media: "0",
      price: null,
      price_unit: "USD",
      messaging_service_sid: null,
      uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`,
      subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}/Media.json` },
    };
    created.push(message);
    await options.onCreate?.(message);
    if (answer === "lost") throw timeout();
    return Response.json(message, { status: 201 });
  };
  const posts = () => requests.filter((r) => r.method === "POST");
  const lookups = () => requests.filter((r) => r.method === "GET");
  return { fetch: fetcher, requests, created, posts, lookups, script: plan };
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

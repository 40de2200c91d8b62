import { expect } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import type { Env } from "@/env";
import { admin, BASE } from "./http";
import { setupAgency, type TestAgency } from "./factories";
import { envWith, fetchWithEnv } from "./voice-factories";

export const PUBLIC = "https://partner.test";
export const ACCOUNT_SID = "AC00000000000000000000000000000001";
export const AUTH_TOKEN = "twilio-test-auth-token";
export const TWILIO_URL = "https://twilio.test";

/** A deployment whose SMS go through Twilio (at the fake's URL). */
export const twilioEnv = () =>
  envWith({ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_BASE_URL: TWILIO_URL, PUBLIC_BASE_URL: PUBLIC });

/** Any request to the Worker with a custom env; the body parsed when it is JSON. */
export async function send(customEnv: Env, path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
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
export const sendSmsThroughTwilio = (agency: TestAgency, contactUuid: string, body: string) =>
  send(twilioEnv(), "/api/v2/messages", {
    method: "POST",
    token: agency.token,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ contact_uuid: contactUuid, channel: "sms", body }),
  });

/** A form Twilio posts to `path`, signed by Twilio's own helper (or with `signature` instead), to a Twilio deployment (or `customEnv`). */
export function twilioPost(path: string, params: Record<string, string>, signature?: string | null, customEnv: Env = twilioEnv()) {
  const url = `${PUBLIC}${path}`;
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  const signed = signature === undefined ? getExpectedTwilioSignature(AUTH_TOKEN, url, params) : signature;
  if (signed !== null) headers["X-Twilio-Signature"] = signed;
  return send(customEnv, path, { method: "POST", headers, body: new URLSearchParams(params).toString() });
}

export const newMessageSid = () => `SM${crypto.randomUUID().replaceAll("-", "")}`;

/** A text from `from` to the agency's number, as Twilio posts it (a fresh MessageSid unless given). */
export const inboundText = (agency: { number: string }, from: string, body: string, options: { sid?: string; env?: Env } = {}) =>
  twilioPost(
    "/providers/twilio/sms",
    { AccountSid: ACCOUNT_SID, MessageSid: options.sid ?? newMessageSid(), From: from, To: agency.number, NumMedia: "0", Body: body },
    undefined,
    options.env,
  );

let numberCounter = 0;
/** An agency with a `*` key and an SMS sender number of its own. */
export async function agencyWithNumber(): Promise<TestAgency & { number: string }> {
  const agency = await setupAgency();
  const number = `+1415777${String(1000 + (++numberCounter % 9000)).slice(-4)}`;
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
    const sid = `SM${crypto.randomUUID().replaceAll("-", "")}`;
    return Response.json(
      { sid, account_sid: ACCOUNT_SID, from: form.From, to: form.To, body: form.Body, status: "queued", error_code: null, error_message: null, num_segments: "1" },
      { status: 201 },
    );
  };
  return { fetch: fetcher, requests };
}

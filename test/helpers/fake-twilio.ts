import { expect } from "vitest";
import type { Env } from "@/env";
import { admin } from "./http";
import { setupAgency, type TestAgency } from "./factories";
import { envWith } from "./voice-factories";

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

export const TWILIO_PUBLIC_URL = "https://partner.test";
export const ACCOUNT_SID = "AC00000000000000000000000000000001";
export const AUTH_TOKEN = "twilio-test-auth-token";
export const TWILIO_URL = "https://twilio.test";

/** A deployment whose SMS go through Twilio at the fake (and any other overrides, such as a recording SMS_QUEUE). */
export const twilioEnv = (overrides: Partial<Env> = {}) =>
  envWith({ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_BASE_URL: TWILIO_URL, PUBLIC_BASE_URL: TWILIO_PUBLIC_URL, ...overrides });

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

let numberCounter = 0;

/** A fresh agency with a `*` key and an SMS sender number. */
export async function agencyWithNumber(): Promise<TestAgency & { number: string }> {
  const agency = await setupAgency();
  const number = `+1415778${String(1000 + (++numberCounter % 9000)).slice(-4)}`;
  const res = await admin("PUT", `/agencies/${agency.agencyUuid}/sms-number`, { number });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...agency, number };
}

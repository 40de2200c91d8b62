import { afterEach, describe, expect, it } from "vitest";
import { createTwilioSmsProvider, retryAfterSeconds } from "@/integrations/twilio/sms-client";
import type { OutboundSms } from "@/domain/messages/sms-provider";
import { restoreClock, setClock } from "../helpers/clock";
import { ACCOUNT_SID, AUTH_TOKEN, fakeTwilio, TWILIO_URL, type TwilioAnswer } from "../helpers/providers";

afterEach(() => restoreClock());

const sms: OutboundSms = { to: "+14155550191", from: "+14155550100", body: "Your showing is at 10am.", ref: { agencyId: "a1", messageId: "m1" } };

function client(script: TwilioAnswer[] = []) {
  const twilio = fakeTwilio(script);
  const provider = createTwilioSmsProvider({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    baseUrl: TWILIO_URL,
    statusCallbackUrl: "https://partner.test/providers/twilio/status",
    fetch: twilio.fetch as typeof fetch,
  });
  return { twilio, provider };
}

describe("Twilio SMS client: send", () => {
  it("tells what each of Twilio's answers means: taken, refused for good, or worth retrying (and whether Twilio may have it)", async () => {
    const { twilio, provider } = client(["accept", "429", "500", "503", "timeout", "reset", "lost"]);
    expect(await provider.send(sms)).toEqual({ outcome: "accepted", providerMessageId: twilio.created[0]!.sid, status: "queued", error: null });
    expect(await provider.send(sms)).toEqual({ outcome: "retry", error: "20429 Too Many Requests", retryAfterSeconds: 30, maybeSent: false });
    expect(await provider.send(sms)).toEqual({ outcome: "retry", error: "20500 An internal server error has occurred", retryAfterSeconds: null, maybeSent: true });
    expect(await provider.send(sms)).toEqual({ outcome: "retry", error: "20503 Service unavailable", retryAfterSeconds: null, maybeSent: true });
    expect(await provider.send(sms)).toEqual({ outcome: "retry", error: "No answer from Twilio within 10 s", retryAfterSeconds: null, maybeSent: true });
    expect(await provider.send(sms)).toEqual({ outcome: "retry", error: "Twilio could not be reached: Network connection lost.", retryAfterSeconds: null, maybeSent: true });
    expect(await provider.send(sms)).toMatchObject({ outcome: "retry", maybeSent: true });
    expect(twilio.created).toHaveLength(2);
    expect(await provider.send({ ...sms, to: "+15005550001" })).toEqual({ outcome: "refused", error: "21211 The 'To' number +15005550001 is not a valid phone number." });
    expect(await provider.send({ ...sms, from: null })).toEqual({ outcome: "refused", error: "The agency has no SMS sender number" });
    expect(twilio.posts()).toHaveLength(8);
  });
});

describe("Twilio SMS client: look-up", () => {
  it("finds the texts to this number, from this number, with this body, created since the first attempt, newest first", async () => {
    const { twilio, provider } = client();
    const start = Date.parse("2026-11-21T15:00:00.000Z");
    setClock(start - 3_600_000);
    await provider.send(sms); // an hour before the first attempt: not this one
    setClock(start);
    await provider.send({ ...sms, body: "Another text" });
    await provider.send({ ...sms, to: "+14155550192" });
    await provider.send({ ...sms, from: "+14155550101" });
    await provider.send(sms);
    await provider.send(sms);
    const found = await provider.findSent(sms, new Date(start).toISOString());
    const [newest, older] = twilio.created.slice(-1).concat(twilio.created.slice(-2, -1));
    expect(found).toEqual({
      outcome: "checked",
      found: [
        { providerMessageId: newest!.sid, status: "queued", error: null },
        { providerMessageId: older!.sid, status: "queued", error: null },
      ],
    });
    const lookup = new URL(twilio.lookups().at(-1)!.url);
    expect(lookup.pathname).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(Object.fromEntries(lookup.searchParams)).toEqual({ To: sms.to, From: sms.from, PageSize: "50" });
    expect(twilio.lookups().at(-1)!.authorization).toBe(`Basic ${btoa(`${ACCOUNT_SID}:${AUTH_TOKEN}`)}`);
  });

  it("finds nothing when Twilio has nothing, and answers a failure to ask as one to retry (never as nothing found)", async () => {
    const { twilio, provider } = client();
    expect(await provider.findSent(sms, new Date().toISOString())).toEqual({ outcome: "checked", found: [] });
    twilio.requests.length = 0;
    const failing = createTwilioSmsProvider({
      accountSid: ACCOUNT_SID,
      authToken: "wrong-token",
      baseUrl: TWILIO_URL,
      statusCallbackUrl: null,
      fetch: twilio.fetch as typeof fetch,
    });
    expect(await failing.findSent(sms, new Date().toISOString())).toEqual({ outcome: "retry", error: "20003 Authenticate", retryAfterSeconds: null, maybeSent: false });
    const unreachable = createTwilioSmsProvider({
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      statusCallbackUrl: null,
      fetch: (async () => {
        throw new TypeError("Network connection lost.");
      }) as typeof fetch,
    });
    expect(await unreachable.findSent(sms, new Date().toISOString())).toMatchObject({ outcome: "retry", maybeSent: false });
  });
});

describe("Retry-After", () => {
  it("reads seconds or an HTTP date, and ignores anything else", () => {
    const now = Date.parse("2026-11-21T15:00:00.000Z");
    expect(retryAfterSeconds("30", now)).toBe(30);
    expect(retryAfterSeconds(" 7 ", now)).toBe(7);
    expect(retryAfterSeconds("Sat, 21 Nov 2026 15:01:30 GMT", now)).toBe(90);
    expect(retryAfterSeconds("Sat, 21 Nov 2026 14:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds("soon", now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});

import type { Context } from "hono";
import { Hono } from "hono";
import { agencyLocation } from "@/db/shards";
import { agencyOfSmsNumber } from "@/domain/messages/sms-numbers";
import type { AppBindings } from "@/lib/context";
import { ApiError, notFound } from "@/lib/errors";
import { toE164 } from "@/lib/phone";
import { rateLimitRule } from "@/lib/rate-limits";
import { agencyMovingError } from "@/lib/shards/agency-moving";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";
import { recordDelivery } from "@/domain/messages/messages.repository";
import { receiveSms } from "@/domain/messages/inbound-sms";
import { TWILIO_STATUS_PATH } from "./sms-client";
import { twilioError, twilioStatus } from "./sms-client";
import { isTwilioSignature } from "./signature";

/**
 * Twilio's callbacks (docs/decisions/real-providers.md): inbound SMS and delivery reports. No API key:
 * each request must carry Twilio's signature of its URL and parameters, made with our auth
 * token; a bad or missing one is 403 and nothing is stored. Limited per client IP, with the
 * body limits of every route. Not part of the Partner API document.
 */
export const TWILIO_SMS_PATH = "/providers/twilio/sms";

export const twilioMessages = {
  badSignature: "Invalid X-Twilio-Signature",
  notConfigured: "Twilio is not configured on this deployment",
  unknownNumber: "No agency has this SMS number",
  unknownMessage: "No agency has this message",
} as const;

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * The form Twilio posted, once its signature checked out. The URL signed is the one Twilio was
 * given: PUBLIC_BASE_URL and the path (with its query), or the request's own URL without one.
 */
async function signedForm(c: Context<AppBindings>): Promise<URLSearchParams> {
  const authToken = c.env.TWILIO_AUTH_TOKEN;
  if (!authToken) throw notFound(twilioMessages.notConfigured);
  const url = new URL(c.req.url);
  const signedUrl = c.env.PUBLIC_BASE_URL ? `${c.env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${url.pathname}${url.search}` : url.toString();
  const form = new URLSearchParams(await c.req.text());
  if (!(await isTwilioSignature(authToken, signedUrl, form, c.req.header("X-Twilio-Signature")))) {
    throw new ApiError("invalid_signature", twilioMessages.badSignature);
  }
  return form;
}

/** The database of an agency the directory found, ready for writes; 404 with `missing` when it found none. */
function writableDb(c: Context<AppBindings>, location: { agencyId: string; shard: string; movingTo: string | null } | undefined, missing: string) {
  if (!location) throw notFound(missing);
  if (location.movingTo) throw agencyMovingError();
  return { agencyId: location.agencyId, db: useShard(c, location.shard, "primary") };
}

async function inboundSms(c: Context<AppBindings>) {
  const form = await signedForm(c);
  const sid = form.get("MessageSid") ?? form.get("SmsSid");
  const from = toE164(form.get("From") ?? "");
  const to = toE164(form.get("To") ?? "");
  if (!sid || !from || !to) throw new ApiError("validation_error", "MessageSid, From and To are required");
  const { agencyId, db } = writableDb(c, await agencyOfSmsNumber(c.env, to), twilioMessages.unknownNumber);
  await receiveSms(db, agencyId, { from, body: form.get("Body") ?? "", providerMessageId: sid });
  return c.body(EMPTY_TWIML, 200, { "Content-Type": "text/xml; charset=utf-8" });
}

async function deliveryStatus(c: Context<AppBindings>) {
  const form = await signedForm(c);
  const sid = form.get("MessageSid") ?? form.get("SmsSid");
  const status = twilioStatus(form.get("MessageStatus") ?? form.get("SmsStatus"));
  if (!sid || !status) throw new ApiError("validation_error", "MessageSid and a known MessageStatus are required");
  // The StatusCallback URL each send gave Twilio names the message and its agency (sms-client.ts),
  // and it is part of what Twilio signed.
  const agencyId = c.req.query("agency");
  const messageId = c.req.query("message");
  if (!agencyId || !messageId) throw new ApiError("validation_error", "The status callback URL names no message (agency and message)");
  const { db } = writableDb(c, await agencyLocation(c.env, agencyId), twilioMessages.unknownMessage);
  await recordDelivery(db, agencyId, messageId, { status, providerMessageId: sid, error: twilioError(form.get("ErrorCode"), form.get("ErrorMessage")) });
  return c.body(null, 204);
}

const limited =
  (path: string, handler: (c: Context<AppBindings>) => Promise<Response>) =>
  async (c: Context<AppBindings>) => {
    await enforceIpRateLimit(c, rateLimitRule("POST", path, "ip"));
    return handler(c);
  };

export const twilioRouter = new Hono<AppBindings>()
  .post(TWILIO_SMS_PATH, limited(TWILIO_SMS_PATH, inboundSms))
  .post(TWILIO_STATUS_PATH, limited(TWILIO_STATUS_PATH, deliveryStatus));

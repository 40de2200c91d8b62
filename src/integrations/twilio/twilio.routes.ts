import type { Context } from "hono";
import { Hono } from "hono";
import { agencyLocation } from "@/db/shards";
import { agencyOfSmsNumber } from "@/domain/messages/sms-numbers";
import type { AppBindings } from "@/lib/context";
import { ApiError, notFound } from "@/lib/errors";
import { toE164 } from "@/lib/phone";
import { nowIso } from "@/lib/time";
import { acceptVerified, refuseUnverified } from "@/integrations/callbacks/callback-guard";
import { TWILIO_STATUS_PATH } from "./sms-client";
import { twilioError, twilioStatus } from "./sms-client";
import { isTwilioSignature } from "./signature";

/**
 * Twilio's callbacks (docs/decisions/real-providers.md): inbound SMS and delivery reports. No API
 * key: each request must carry Twilio's signature of its URL and parameters, made with our auth
 * token, and that is checked first. A bad or missing one is 403 and nothing is stored, and only
 * such requests count against the client IP's limit (Twilio sends from addresses it shares, and
 * never retries a refused callback). A signed callback is answered 2xx once it is applied, or
 * queued while its agency moves (src/domain/provider-callbacks/). Body limits as on every route.
 * Not part of the Partner API document.
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
 * The form Twilio posted to `path`, once its signature checked out. The URL signed is the one
 * Twilio was given: PUBLIC_BASE_URL and the path (with its query), or the request's own URL
 * without one.
 */
async function signedForm(c: Context<AppBindings>, path: string): Promise<URLSearchParams> {
  const authToken = c.env.TWILIO_AUTH_TOKEN;
  if (!authToken) return refuseUnverified(c, path, notFound(twilioMessages.notConfigured));
  const url = new URL(c.req.url);
  const signedUrl = c.env.PUBLIC_BASE_URL ? `${c.env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${url.pathname}${url.search}` : url.toString();
  const form = new URLSearchParams(await c.req.text());
  if (!(await isTwilioSignature(authToken, signedUrl, form, c.req.header("X-Twilio-Signature")))) {
    return refuseUnverified(c, path, new ApiError("invalid_signature", twilioMessages.badSignature));
  }
  return form;
}

async function inboundSms(c: Context<AppBindings>) {
  const form = await signedForm(c, TWILIO_SMS_PATH);
  const sid = form.get("MessageSid") ?? form.get("SmsSid");
  const from = toE164(form.get("From") ?? "");
  const to = toE164(form.get("To") ?? "");
  if (!sid || !from || !to) throw new ApiError("validation_error", "MessageSid, From and To are required");
  const location = await agencyOfSmsNumber(c.env, to);
  if (!location) throw notFound(twilioMessages.unknownNumber);
  await acceptVerified(c, location, {
    type: "sms.received",
    agency_id: location.agencyId,
    from,
    body: form.get("Body") ?? "",
    provider_message_id: sid,
    received_at: nowIso(),
  });
  return c.body(EMPTY_TWIML, 200, { "Content-Type": "text/xml; charset=utf-8" });
}

async function deliveryStatus(c: Context<AppBindings>) {
  const form = await signedForm(c, TWILIO_STATUS_PATH);
  const sid = form.get("MessageSid") ?? form.get("SmsSid");
  const status = twilioStatus(form.get("MessageStatus") ?? form.get("SmsStatus"));
  if (!sid || !status) throw new ApiError("validation_error", "MessageSid and a known MessageStatus are required");
  // The StatusCallback URL each send gave Twilio names the message and its agency (sms-client.ts),
  // and it is part of what Twilio signed.
  const agencyId = c.req.query("agency");
  const messageId = c.req.query("message");
  if (!agencyId || !messageId) throw new ApiError("validation_error", "The status callback URL names no message (agency and message)");
  const location = await agencyLocation(c.env, agencyId);
  if (!location) throw notFound(twilioMessages.unknownMessage);
  await acceptVerified(c, location, {
    type: "sms.delivery",
    agency_id: agencyId,
    message_id: messageId,
    status,
    provider_message_id: sid,
    error: twilioError(form.get("ErrorCode"), form.get("ErrorMessage")),
  });
  return c.body(null, 204);
}

export const twilioRouter = new Hono<AppBindings>().post(TWILIO_SMS_PATH, inboundSms).post(TWILIO_STATUS_PATH, deliveryStatus);

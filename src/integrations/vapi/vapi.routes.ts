import type { Context } from "hono";
import { Hono } from "hono";
import { agencyLocation } from "@/db/shards";
import type { AppBindings } from "@/lib/context";
import { timingSafeEqual } from "@/lib/crypto";
import { ApiError, notFound } from "@/lib/errors";
import { isoAt } from "@/lib/time";
import { acceptVerified, refuseUnverified } from "@/integrations/callbacks/callback-guard";
import { VAPI_EVENTS_PATH } from "./voice-client";
import { vapiServerMessageState, type VapiServerMessage } from "./voice-client";

/**
 * Vapi's server messages (docs/decisions/real-providers.md): each call placed through Vapi asks
 * for `status-update` and `end-of-call-report` here, with our secret in `x-vapi-secret`, which is
 * checked first: only a request without the right secret counts against the client IP's limit.
 * Both messages move the call exactly as a poll would (src/domain/voice-ai/call-reports.ts):
 * whichever of the poll, the update and the report comes first ends the call and charges it
 * once. While the call's agency moves, the message is queued and applied after the move
 * (202 `queued: true`); otherwise 200 says whether it changed the call (`applied`).
 */
export const vapiMessages = {
  badSecret: "Invalid x-vapi-secret",
  notConfigured: "Vapi server messages are not configured on this deployment",
} as const;

const string = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined);
const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

async function serverMessage(c: Context<AppBindings>) {
  const secret = c.env.VAPI_WEBHOOK_SECRET;
  if (!secret) return refuseUnverified(c, VAPI_EVENTS_PATH, notFound(vapiMessages.notConfigured));
  if (!timingSafeEqual(c.req.header("x-vapi-secret") ?? "", secret)) {
    return refuseUnverified(c, VAPI_EVENTS_PATH, new ApiError("invalid_signature", vapiMessages.badSecret));
  }
  let body: { message?: VapiServerMessage };
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError("validation_error", "The body must be a JSON server message");
  }
  const message = body?.message;
  if (message?.type !== "end-of-call-report" && message?.type !== "status-update") return c.json({ success: true, applied: false }, 200);
  // The call's own server URL names it (src/integrations/vapi/voice-client.ts); Vapi's call id must match.
  const providerCallId = string(message.call?.id);
  const callId = c.req.query("call");
  const agencyId = c.req.query("agency");
  if (!providerCallId || !callId || !agencyId || !isUuid(callId) || !isUuid(agencyId)) {
    throw new ApiError("validation_error", "The message names no call of this API (the call and agency query parameters, and call.id)");
  }
  const state = vapiServerMessageState(message, providerCallId, isoAt(Date.now()));
  const location = await agencyLocation(c.env, agencyId);
  if (!state || !location) return c.json({ success: true, applied: false }, 200);
  const accepted = await acceptVerified(c, location, { type: "call.report", agency_id: agencyId, call_id: callId.toLowerCase(), state });
  if (accepted === "deferred") return c.json({ success: true, applied: false, queued: true }, 202);
  return c.json({ success: true, applied: accepted === "applied" }, 200);
}

export const vapiRouter = new Hono<AppBindings>().post(VAPI_EVENTS_PATH, serverMessage);

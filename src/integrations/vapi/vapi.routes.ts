import type { Context } from "hono";
import { Hono } from "hono";
import { agencyLocation } from "@/db/shards";
import type { AppBindings } from "@/lib/context";
import { timingSafeEqual } from "@/lib/crypto";
import { ApiError, notFound } from "@/lib/errors";
import { rateLimitRule } from "@/lib/rate-limits";
import { isoAt } from "@/lib/time";
import { enforceIpRateLimit } from "@/middleware/rate-limit";
import { useShard } from "@/middleware/shard-session";
import { callAwaitingReport } from "@/domain/voice-ai/call-reports";
import { completeCall } from "@/domain/voice-ai/dispatch";
import { VAPI_EVENTS_PATH } from "./voice-client";
import { vapiCallState, type VapiCall } from "./voice-client";

/**
 * Vapi's server messages (docs/decisions/real-providers.md): each call placed through Vapi asks for
 * `status-update` and `end-of-call-report` here, with our secret in `x-vapi-secret`. The
 * end-of-call report completes the call exactly as a poll that finds it ended does, through
 * the same conditional write (`completeCall`): whichever comes first applies, the other finds
 * the call no longer in progress, and the ledger's unique index charges the wallet once. A
 * status update changes nothing on its own: the call is in progress from its dial, and its end
 * comes with the report (which carries the summary), or by the poll when no report arrives.
 */
export const vapiMessages = {
  badSecret: "Invalid x-vapi-secret",
  notConfigured: "Vapi server messages are not configured on this deployment",
} as const;

interface ServerMessage {
  type?: unknown;
  call?: VapiCall;
  endedReason?: unknown;
  startedAt?: unknown;
  endedAt?: unknown;
  summary?: unknown;
  analysis?: { summary?: unknown } | null;
}

const string = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined);
const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

async function serverMessage(c: Context<AppBindings>) {
  await enforceIpRateLimit(c, rateLimitRule("POST", VAPI_EVENTS_PATH, "ip"));
  const secret = c.env.VAPI_WEBHOOK_SECRET;
  if (!secret) throw notFound(vapiMessages.notConfigured);
  if (!timingSafeEqual(c.req.header("x-vapi-secret") ?? "", secret)) throw new ApiError("invalid_signature", vapiMessages.badSecret);
  let body: { message?: ServerMessage };
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError("validation_error", "The body must be a JSON server message");
  }
  const message = body?.message;
  if (message?.type !== "end-of-call-report") return c.json({ success: true, applied: false }, 200);
  // The call's own server URL names it (src/integrations/vapi/voice-client.ts); Vapi's call id must match.
  const providerCallId = string(message.call?.id);
  const callId = c.req.query("call");
  const agencyId = c.req.query("agency");
  if (!providerCallId || !callId || !agencyId || !isUuid(callId) || !isUuid(agencyId)) {
    throw new ApiError("validation_error", "The report names no call of this API (the call and agency query parameters, and call.id)");
  }
  const location = await agencyLocation(c.env, agencyId);
  if (!location) return c.json({ success: true, applied: false }, 200);
  const db = useShard(c, location.shard, "primary");
  const call = await callAwaitingReport(db, agencyId, callId, providerCallId);
  if (!call) return c.json({ success: true, applied: false }, 200);
  const now = isoAt(Date.now());
  const state = vapiCallState(
    {
      ...message.call,
      id: providerCallId,
      status: "ended",
      endedReason: message.endedReason ?? message.call?.endedReason,
      startedAt: message.startedAt ?? message.call?.startedAt,
      endedAt: message.endedAt ?? message.call?.endedAt,
      analysis: message.analysis ?? message.call?.analysis,
      summary: message.summary ?? message.call?.summary,
    },
    now,
  );
  if (state.state !== "ended") return c.json({ success: true, applied: false }, 200);
  const applied = await completeCall(db, call, state.providerCallId, state.outcome, now);
  return c.json({ success: true, applied }, 200);
}

export const vapiRouter = new Hono<AppBindings>().post(VAPI_EVENTS_PATH, serverMessage);

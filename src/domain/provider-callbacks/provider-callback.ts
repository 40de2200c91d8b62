import type { Db } from "@/db/client";
import { receiveSms } from "@/domain/messages/inbound-sms";
import { recordDelivery } from "@/domain/messages/messages.repository";
import type { DeliveryStatus } from "@/domain/messages/sms-provider";
import { applyCallReport } from "@/domain/voice-ai/call-reports";
import type { ProviderCallState } from "@/domain/voice-ai/voice-provider";
import { isoAt } from "@/lib/time";

/**
 * A provider's callback once its signature checked out, read into what it means
 * (docs/decisions/real-providers.md): the same fields the live path hands the domain, never the
 * raw request. It is also the body of a `provider-callbacks` queue message, which carries a
 * callback that could not be applied at once (its agency was moving) until it can.
 */
export type ProviderCallback =
  /** An SMS a person sent to the agency's number (receiveSms). */
  | { type: "sms.received"; agency_id: string; from: string; body: string; provider_message_id: string; received_at: string }
  /** The provider's report on an outbound SMS (recordDelivery). */
  | { type: "sms.delivery"; agency_id: string; message_id: string; status: DeliveryStatus; provider_message_id: string; error: string | null }
  /** A status update or end-of-call report of a call, as the state a poll would find (applyCallReport). */
  | { type: "call.report"; agency_id: string; call_id: string; state: ProviderCallState };

export const CALLBACK_QUEUE_NAME = "provider-callbacks";
export const CALLBACK_DLQ_NAME = "provider-callbacks-dlq";

const TYPES = new Set<string>(["sms.received", "sms.delivery", "call.report"]);

/** A queue message this Worker wrote (a message from an older or broken producer is dropped). */
export const isProviderCallback = (body: unknown): body is ProviderCallback =>
  typeof body === "object" && body !== null && TYPES.has((body as ProviderCallback).type) && typeof (body as ProviderCallback).agency_id === "string";

/**
 * Applies a callback to its agency's database through the services the routes and jobs use.
 * Each is idempotent, so a callback applied twice (a queue redelivery, a provider's retry)
 * changes nothing the second time: an SMS is stored once per provider message id, a delivery
 * status only moves forward, a call ends once. True when something changed.
 */
export async function applyCallback(db: Db, callback: ProviderCallback, now = Date.now()): Promise<boolean> {
  switch (callback.type) {
    case "sms.received":
      return receiveSms(db, callback.agency_id, {
        from: callback.from,
        body: callback.body,
        providerMessageId: callback.provider_message_id,
        receivedAt: callback.received_at,
      });
    case "sms.delivery":
      return (
        await recordDelivery(db, callback.agency_id, callback.message_id, {
          status: callback.status,
          providerMessageId: callback.provider_message_id,
          error: callback.error,
        })
      ).moved;
    case "call.report":
      return applyCallReport(db, callback.agency_id, callback.call_id, callback.state, isoAt(now));
  }
}

/** What identifies a callback in the logs: never a phone number or a text. */
export const callbackLogFields = (callback: ProviderCallback) => ({
  callback_type: callback.type,
  agency_id: callback.agency_id,
  ...(callback.type === "sms.received"
    ? { provider_message_id: callback.provider_message_id }
    : callback.type === "sms.delivery"
      ? { message_id: callback.message_id, provider_message_id: callback.provider_message_id }
      : { call_id: callback.call_id, provider_call_id: callback.state.providerCallId }),
});

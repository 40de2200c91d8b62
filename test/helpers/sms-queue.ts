import { expect } from "vitest";
import type { SmsMessage } from "@/lib/queues/sms-message";
import { api } from "./http";
import { dbWith } from "./shards";

/** The `sms-sends` message of a stored SMS, as `POST /messages` sends it. */
export const smsSend = (messageUuid: string, agencyUuid: string): SmsMessage => ({ type: "send", message_id: messageUuid, agency_id: agencyUuid });

/** What partners do not see of an SMS: its send's bookkeeping. */
export async function sendRow(messageUuid: string) {
  return (await (await dbWith("messages", messageUuid))
    .prepare(
      "SELECT delivery_status, delivery_error, provider_message_id, to_number, send_attempts, send_first_attempt_at, send_next_attempt_at, send_in_flight, send_lookup_needed FROM messages WHERE id = ?",
    )
    .bind(messageUuid)
    .first()) as {
    delivery_status: string;
    delivery_error: string | null;
    provider_message_id: string | null;
    to_number: string | null;
    send_attempts: number;
    send_first_attempt_at: string | null;
    send_next_attempt_at: string | null;
    send_in_flight: number;
    send_lookup_needed: number;
  };
}

export const getMessage = async (token: string, messageUuid: string) => {
  const res = await api("GET", `/messages/${messageUuid}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.message as Record<string, any>;
};

/**
 * Waits until the local `sms-sends` queue has sent an SMS stored through the API (its
 * `delivery_status` is no longer `queued`), reading D1 directly so the wait costs no rate limit,
 * and returns it as `GET /messages/{message_uuid}` shows it.
 */
export async function settledSms(token: string, messageUuid: string, timeoutMs = 20_000) {
  // Counted in waits, not by Date.now(): a test may have stopped the clock.
  for (let waited = 0; (await sendRow(messageUuid)).delivery_status === "queued" && waited < timeoutMs; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const message = await getMessage(token, messageUuid);
  expect(message.delivery_status, JSON.stringify(message)).not.toBe("queued");
  return message;
}

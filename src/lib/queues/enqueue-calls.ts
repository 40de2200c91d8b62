import { MAX_QUEUE_DELAY_SECONDS, secondsUntil, type CallMessage } from "./call-message";
import { sendInBatches } from "./send-in-batches";

export interface DueCall {
  id: string;
  agencyId: string;
  dueAt: string;
}

/**
 * The queue delay that makes a call arrive when due. Only calls due within the queue's
 * maximum delay may be sent (a larger `delaySeconds` makes `send()` throw); callers keep
 * later ones `scheduled`, so exceeding it here is a bug and throws before anything is sent.
 */
export function queueDelayFor(dueAt: string, now: number): number {
  const delay = secondsUntil(dueAt, now);
  if (delay > MAX_QUEUE_DELAY_SECONDS) {
    throw new RangeError(`A call due at ${dueAt} is ${delay}s away, beyond the queue's maximum delay of ${MAX_QUEUE_DELAY_SECONDS}s`);
  }
  return delay;
}

/** Sends one `dial` message per call, each delayed until the call is due. */
export async function sendDials(queue: Queue<CallMessage>, calls: DueCall[], now: number): Promise<void> {
  const requests = calls.map((c) => ({
    body: { type: "dial", call_id: c.id, agency_id: c.agencyId } satisfies CallMessage,
    delaySeconds: queueDelayFor(c.dueAt, now),
  }));
  await sendInBatches(queue, requests);
}

export const sendPoll = (queue: Queue<CallMessage>, call: { id: string; agencyId: string }, delaySeconds: number) =>
  queue.send({ type: "poll", call_id: call.id, agency_id: call.agencyId }, { delaySeconds: Math.min(Math.max(0, Math.ceil(delaySeconds)), MAX_QUEUE_DELAY_SECONDS) });


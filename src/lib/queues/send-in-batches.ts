/** `sendBatch` takes at most 100 messages (Cloudflare Queues limits). */
export const MAX_SEND_BATCH = 100;

/** Sends any number of messages, in batches the queue accepts. */
export async function sendInBatches<T>(queue: Queue<T>, requests: MessageSendRequest<T>[]) {
  for (let i = 0; i < requests.length; i += MAX_SEND_BATCH) {
    await queue.sendBatch(requests.slice(i, i + MAX_SEND_BATCH));
  }
}

import type { Db } from "@/db/client";
import { abandonStuckSends, claimLostSends } from "@/domain/messages/sms-sends.repository";
import { sendSmsMessages, type SmsMessage } from "@/lib/queues/sms-message";

export interface SmsSweepReport {
  sms_resent: number;
  sms_abandoned: number;
}

/**
 * The every-minute SMS sweep, with `now` the cron's scheduled time:
 * 1. gives up the SMS whose consumer kept dying, hours after their first attempt (`failed`, each
 *    with its `message.updated` event), so none stays `queued` for ever;
 * 2. enqueues again the SMS whose attempt has been due for a while without starting: the queue
 *    send after `POST /messages` or after a failed attempt failed or was lost, or a consumer died
 *    mid-attempt. They are marked first, conditionally, so two sweeps do not both send one, and a
 *    duplicate message is harmless anyway (each attempt is claimed). A send that fails here is
 *    tried again by the next run.
 */
export async function sweepSms(db: Db, queue: Queue<SmsMessage>, now: number): Promise<SmsSweepReport> {
  const abandoned = await abandonStuckSends(db, now);
  const lost = await claimLostSends(db, now);
  if (lost.length > 0) await sendSmsMessages(queue, lost);
  return { sms_resent: lost.length, sms_abandoned: abandoned };
}

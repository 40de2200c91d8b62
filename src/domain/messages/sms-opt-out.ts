import type { Db } from "@/db/client";
import { ApiError } from "@/lib/errors";
import { isSuppressed } from "@/domain/sms-opt-out/suppressions.repository";
import { SMS_OPTED_OUT_MESSAGE } from "./messages.rules";

/**
 * The check every path that texts makes before it stores or sends an SMS: a suppressed number
 * (docs/decisions/sms-opt-out.md) is 409 `sms_opt_out`, and nothing is stored or sent. It reads
 * the number's suppression itself, not a contact's copy of it, so it can run again wherever a
 * text is finally handed to the provider.
 */
export async function assertNotSuppressed(db: Db, agencyId: string, to: string) {
  if (await isSuppressed(db, agencyId, to)) throw new ApiError("sms_opt_out", SMS_OPTED_OUT_MESSAGE);
}

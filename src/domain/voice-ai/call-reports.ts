import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { voiceCalls } from "@/db/schema";
import type { VoiceCallRow } from "./calls.repository";

/**
 * The call a provider's end-of-call report may complete (through completeCall, dispatch.ts, as
 * a poll that finds it ended would): the agency's call still in progress, placed as this
 * provider call or not yet known by one. Undefined when it is already ended (by the poll, or by
 * the same report sent again), or is not this provider call. The call's id is the one the
 * call's own callback URL carries, written by us, so it is matched as given.
 */
export async function callAwaitingReport(db: Db, agencyId: string, callId: string, providerCallId: string): Promise<VoiceCallRow | undefined> {
  const call = await db
    .select()
    .from(voiceCalls)
    .where(and(eq(voiceCalls.id, callId), eq(voiceCalls.agencyId, agencyId)))
    .get();
  if (!call || call.status !== "in-progress" || (call.providerCallId !== null && call.providerCallId !== providerCallId)) return undefined;
  return call;
}

import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { voiceCalls } from "@/db/schema";
import { changeCall, getCall } from "./calls.repository";
import { applyProviderState, callSummaryText } from "./dispatch";
import type { ProviderCallState } from "./voice-provider";

/**
 * What a provider's own message about a call says (docs/decisions/real-providers.md): a status
 * update or an end-of-call report, already read into the state a poll would find. It is applied
 * exactly as the poll applies it (applyProviderState, dispatch.ts), to the agency's call as its
 * own callback URL names it (written by us, so matched as given), only while that call is in
 * progress as this provider call or not yet known by one: whichever of the poll, the status
 * update and the report comes first ends the call and charges it, once; the others find it no
 * longer in progress. A report that comes after the call was ended without a summary (by a
 * status update, or a poll before the provider had one) still adds its summary, with a
 * `call.updated` event. True when the call changed.
 */
export async function applyCallReport(db: Db, agencyId: string, callId: string, state: ProviderCallState, now: string): Promise<boolean> {
  const call = await getCall(db, agencyId, callId);
  if (!call || (call.providerCallId !== null && call.providerCallId !== state.providerCallId)) return false;
  if (call.status === "in-progress" && (await applyProviderState(db, call, state, now))) return true;
  if (state.state !== "ended" || state.outcome.summary === null) return false;
  return addMissingSummary(db, { id: call.id, agencyId }, state.providerCallId, state.outcome.summary, now);
}

/** Gives an ended call of this provider call the summary it ended without. Conditional, so two reports add it once. */
const addMissingSummary = (db: Db, call: { id: string; agencyId: string }, providerCallId: string, summary: string, now: string) =>
  changeCall(db, {
    call,
    where: and(
      eq(voiceCalls.agencyId, call.agencyId),
      inArray(voiceCalls.status, ["completed", "failed"]),
      eq(voiceCalls.providerCallId, providerCallId),
      isNull(voiceCalls.summary),
    ),
    set: { summary: callSummaryText(summary), updatedAt: now },
    type: "call.updated",
  });

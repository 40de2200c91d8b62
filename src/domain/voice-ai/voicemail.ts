import type { DialRequest } from "./voice-provider";

/**
 * What the agent says to a voicemail box when the agency chose `leave_message`: who calls, for
 * which agency (its `agency_name`), and the number to call back. Every provider leaves the same.
 */
export function voicemailMessageFor(req: DialRequest): string {
  const greeting = req.contactName ? `Hi ${req.contactName}, this` : "Hi, this";
  const from = req.agencyName ? ` from ${req.agencyName}` : "";
  const callBack = req.fromNumber ? ` at ${req.fromNumber.number}` : "";
  return `${greeting} is ${req.agent.name}${from}. Sorry we missed you; please call us back${callBack}. Thank you!`;
}

import { errorResponse, INVALID_REQUEST, isRecord } from "./jsonrpc";

/** The first protocol revision without JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them. */
const FIRST_VERSION_WITHOUT_BATCHES = "2025-06-18";

const isVersion = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text);
/** Revisions are ISO dates, so they compare as text. */
const allowsBatches = (version: string) => isVersion(version) && version < FIRST_VERSION_WITHOUT_BATCHES;

/** The protocolVersion of an initialize request among the batch's messages, if one is there. */
function initializeVersion(messages: unknown[]): string | undefined {
  for (const message of messages) {
    if (!isRecord(message) || message.method !== "initialize" || !isRecord(message.params)) continue;
    const version = message.params.protocolVersion;
    if (typeof version === "string") return version;
  }
  return undefined;
}

/**
 * The refusal of a JSON-RPC batch (an array body) sent on a protocol version without batches,
 * or nothing. The MCP SDK serves any batch that is not of the 2026-07-28 envelope as 2025-era
 * traffic, whatever its MCP-Protocol-Version header says: one POST would buy up to 100 calls.
 *
 * A batch names its version in the MCP-Protocol-Version header and, when it carries the
 * initialize request, in that request's params.protocolVersion; every version it names must be
 * older than 2025-06-18. One that names none is a 2025-03-26 client's (the SDK's default for a
 * request without the header, and the only revision that batched): clients of later revisions
 * send the header on every request after initialize, so only a header-less batch without a
 * newer initialize is served.
 */
export function batchRefusal(body: unknown, headerVersion: string | undefined): Response | undefined {
  if (!Array.isArray(body)) return undefined;
  const named = [headerVersion, initializeVersion(body)].filter((version) => version !== undefined);
  const refused = named.find((version) => !allowsBatches(version));
  if (refused === undefined) return undefined;
  const shown = refused.length > 40 ? `${refused.slice(0, 40)}…` : refused;
  const message = `Invalid Request: JSON-RPC batches are not supported in protocol version ${shown}; send one message per request`;
  return errorResponse(400, INVALID_REQUEST, message);
}

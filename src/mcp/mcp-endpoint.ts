import { errorResponse, echoableId, INVALID_REQUEST, isNotification, isRequest, isResponse, PARSE_ERROR, TRANSPORT_ERROR } from "./jsonrpc";
import { answerLegacy, answerModern, type MethodContext } from "./mcp-methods";
import { claimsEnvelope, notificationEra, requestEra, standardHeadersOf, type Era } from "./modern-envelope";
import { LEGACY_VERSIONS } from "./protocol-versions";

/**
 * MCP's streamable HTTP transport, stateless, as the official SDK's `createMcpHandler` serves it
 * (docs/decisions/sdk-and-mcp.md): every POST carries one JSON-RPC message (or, in the 2025 era,
 * a batch) and is answered on its own; no session, no stream left open. The checks come in the
 * SDK's order, with its statuses, codes and messages, so a client sees the same endpoint.
 */

/** The SDK's bound on a batch's messages. */
const MAX_BATCH = 100;

/** The body a POST carried: JSON, or nothing usable (empty, or not JSON). */
export type McpBody = { json: unknown } | { json?: undefined; unusable: true };

const isJsonContentType = (header: string | null) => header !== null && header.split(";")[0]!.trim().toLowerCase() === "application/json";

/**
 * The 2025 era's transport lets a server answer a POST either on a stream of server-sent events
 * or as JSON, so a client must accept both (the SDK refuses one that does not, and so do we).
 * We answer JSON: every answer is whole when it is sent, nothing is ever streamed, and a body of
 * known length costs every proxy on the way less than an event stream (docs/decisions/sdk-and-mcp.md).
 */
const acceptsLegacyAnswer = (accept: string | null) => accept !== null && accept.includes("application/json") && accept.includes("text/event-stream");

/** What one message (or a batch, which is the 2025 era's) is, before anything is answered. */
function eraOf(body: unknown, headers: Headers): Era | "response" {
  if (Array.isArray(body)) {
    if (body.length === 0) return refused(INVALID_REQUEST, "Bad Request: empty JSON-RPC batch");
    for (const element of body) {
      if (claimsEnvelope((element as { params?: unknown } | null)?.params)) {
        return refused(INVALID_REQUEST, "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later");
      }
      if (!isRequest(element) && !isNotification(element) && !isResponse(element)) return refused(INVALID_REQUEST, "Bad Request: JSON-RPC batch contains an invalid message");
    }
    return { era: "legacy" };
  }
  if (isResponse(body)) return "response";
  if (isRequest(body)) return requestEra(body, standardHeadersOf(headers));
  if (isNotification(body)) return notificationEra(body, standardHeadersOf(headers));
  return refused(INVALID_REQUEST, "Bad Request: the request body is not a valid JSON-RPC message");
}
const refused = (code: number, message: string): Era => ({ era: "refused", refusal: { status: 400, code, message } });

/** Answers a 2025-era POST: the legacy transport's checks, then its request as one JSON answer (a batch's as an array, JSON-RPC's batch answer). */
async function serveLegacy(body: unknown, headers: Headers, context: MethodContext): Promise<Response> {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH) return errorResponse(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
  const initializes = messages.some((message) => isRequest(message) && message.method === "initialize");
  if (initializes && messages.length > 1) return errorResponse(400, INVALID_REQUEST, "Invalid Request: Only one initialization request is allowed");
  const version = headers.get("mcp-protocol-version");
  if (!initializes && version !== null && !(LEGACY_VERSIONS as readonly string[]).includes(version)) {
    return errorResponse(400, TRANSPORT_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${LEGACY_VERSIONS.join(", ")})`);
  }
  const requests = messages.filter(isRequest);
  // Notifications and posted responses are taken and need no answer.
  if (requests.length === 0) return new Response(null, { status: 202 });
  const answers = await Promise.all(requests.map((request) => answerLegacy(request, context)));
  const json = Array.isArray(body) ? `[${answers.map((answer) => answer.json).join(",")}]` : answers[0]!.json;
  return new Response(json, { status: 200, headers: { "Content-Type": "application/json" } });
}

/**
 * Answers a request to /mcp. `body` is the POST's body as read once by the router; the
 * method's checks (scopes, the route's admission) have been settled before.
 */
export async function serveMcp(method: string, headers: Headers, body: McpBody, context: MethodContext): Promise<Response> {
  // GET (a 2025 client's stream) and DELETE (its session's end) have nothing to serve here.
  if (method !== "POST") return errorResponse(405, TRANSPORT_ERROR, "Method not allowed.", { headers: { Allow: "POST" } });
  if (!isJsonContentType(headers.get("content-type"))) return errorResponse(415, TRANSPORT_ERROR, "Unsupported Media Type: Content-Type must be application/json");
  if (body.json === undefined) {
    // The SDK hands a body that is not JSON to its 2025 transport, which checks Accept first.
    if (!acceptsLegacyAnswer(headers.get("accept"))) return notAcceptable();
    return errorResponse(400, PARSE_ERROR, "Parse error: Invalid JSON");
  }
  const era = eraOf(body.json, headers);
  if (era === "response" || era.era === "legacy") {
    if (!acceptsLegacyAnswer(headers.get("accept"))) return notAcceptable();
    return serveLegacy(body.json, headers, context);
  }
  if (era.era === "refused") {
    const { status, code, message, data } = era.refusal;
    return errorResponse(status, code, message, { id: echoableId(body.json), data });
  }
  // The 2026-07-28 era: one message, answered as JSON whatever the Accept header says.
  if (!isRequest(body.json)) return new Response(null, { status: 202 });
  const answer = await answerModern(body.json, context);
  return new Response(answer.json, { status: answer.status, headers: { "Content-Type": "application/json" } });
}

const notAcceptable = () => errorResponse(406, TRANSPORT_ERROR, "Not Acceptable: Client must accept both application/json and text/event-stream");

import { callRoute, type CallerRequest, type PartnerApiFetch } from "./call-route";
import { errorText, INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, resultText, type JsonRpcRequest } from "./jsonrpc";
import type { CallToolResult } from "./mcp-types";
import { META, MODERN_VERSIONS, negotiatedVersion } from "./protocol-versions";
import { callToolParams, initializeParams } from "./request-params";
import { INSTRUCTIONS, SERVER_INFO, type ToolSet } from "./tool-catalog";

/** What a request is answered with: its JSON-RPC response as text, and the HTTP status of a 2026-07-28 answer. */
export interface Answer {
  json: string;
  status: number;
}

/** What a request needs beyond its message: the tools the key may use, and how to reach their routes as the caller. */
export interface MethodContext {
  tools: ToolSet;
  caller: CallerRequest;
  send: PartnerApiFetch;
}

/**
 * We never notify a client of a changed tool list: the tools follow the key's scopes, which
 * a request cannot change, and a stateless endpoint holds no stream to send it on.
 */
const CAPABILITIES = { tools: { listChanged: false } };

const serverInfoMeta = { [META.serverInfo]: SERVER_INFO };
const INITIALIZE_REST = `"capabilities":${JSON.stringify(CAPABILITIES)},"serverInfo":${JSON.stringify(SERVER_INFO)},"instructions":${JSON.stringify(INSTRUCTIONS)}}`;
const DISCOVER = JSON.stringify({
  supportedVersions: MODERN_VERSIONS,
  capabilities: CAPABILITIES,
  instructions: INSTRUCTIONS,
  resultType: "complete",
  ttlMs: 0,
  cacheScope: "private",
  _meta: serverInfoMeta,
});

/** A tool's result as JSON text; a 2026-07-28 one says it is complete and names its server. */
function toolResultJson(result: CallToolResult, era: "legacy" | "modern"): string {
  let json = `{"content":${JSON.stringify(result.content)}`;
  if (result.structuredJson !== undefined) json += `,"structuredContent":${result.structuredJson}`;
  else if (result.structuredContent !== undefined) json += `,"structuredContent":${JSON.stringify(result.structuredContent)}`;
  if (result.isError) json += `,"isError":true`;
  if (era === "modern") json += `,"resultType":"complete"`;
  const meta = era === "modern" ? { ...result._meta, ...serverInfoMeta } : result._meta;
  if (meta) json += `,"_meta":${JSON.stringify(meta)}`;
  return `${json}}`;
}

const ok = (request: JsonRpcRequest, result: string): Answer => ({ json: resultText(request.id, result), status: 200 });
const failed = (request: JsonRpcRequest, code: number, message: string, status = 200): Answer => ({ json: errorText(request.id, code, message), status });

async function callTool(request: JsonRpcRequest, era: "legacy" | "modern", context: MethodContext): Promise<Answer> {
  const params = callToolParams(request.params);
  if ("problem" in params) return failed(request, INVALID_PARAMS, `Invalid tools/call request: ${params.problem}`);
  const ready = context.tools.byName.get(params.name);
  if (!ready) return failed(request, INVALID_PARAMS, `Tool ${params.name} not found`);
  return ok(request, toolResultJson(await callRoute(context.send, ready.call, params.args, context.caller), era));
}

/**
 * Answers one request of the 2025 era (after `initialize`, or without it: every request
 * stands alone), with the methods the SDK's server answered for our tools.
 */
export async function answerLegacy(request: JsonRpcRequest, context: MethodContext): Promise<Answer> {
  switch (request.method) {
    case "initialize": {
      const params = initializeParams(request.params);
      // The SDK answers malformed initialize params as an internal error, with zod's issues as the message.
      if ("problem" in params) return failed(request, INTERNAL_ERROR, params.problem);
      return ok(request, `{"protocolVersion":${JSON.stringify(negotiatedVersion(params.protocolVersion))},${INITIALIZE_REST}`);
    }
    case "ping":
      return ok(request, "{}");
    case "tools/list":
      return ok(request, context.tools.listJson("legacy"));
    case "tools/call":
      return callTool(request, "legacy", context);
    default:
      return failed(request, METHOD_NOT_FOUND, "Method not found");
  }
}

/**
 * Answers one request of the 2026-07-28 era: `server/discover`, the tools. A method it does not
 * have is HTTP 404 in this era (its error is the transport's answer, not a result's).
 */
export async function answerModern(request: JsonRpcRequest, context: MethodContext): Promise<Answer> {
  switch (request.method) {
    case "server/discover":
      return ok(request, DISCOVER);
    case "tools/list":
      return ok(request, context.tools.listJson("modern"));
    case "tools/call":
      return callTool(request, "modern", context);
    default:
      return failed(request, METHOD_NOT_FOUND, "Method not found", 404);
  }
}

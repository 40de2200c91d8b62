import type { RequestId } from "./mcp-types";

/**
 * JSON-RPC 2.0 messages as MCP's streamable HTTP transport takes them, checked exactly as the
 * official SDK's wire schemas check them (JSONRPCMessageSchema of @modelcontextprotocol/core):
 * a request has exactly `jsonrpc: "2.0"`, an `id` (a string, or a safe integer), a string
 * `method` and optional object `params`; a notification the same without `id`; a response
 * `result` or `error`. Any other key makes the message invalid.
 */

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** The transport's own refusals (method, media type, Accept, origin): JSON-RPC's server-error range. */
export const TRANSPORT_ERROR = -32000;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const isId = (value: unknown): value is RequestId => typeof value === "string" || Number.isSafeInteger(value);
const isToken = (value: unknown) => value === undefined || isId(value);

/** `params`: an object whose `_meta`, if any, is an object with a valid progress token and related task. */
function validParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isRecord(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta) || !isToken(meta.progressToken)) return false;
  const related = meta["io.modelcontextprotocol/related-task"];
  return related === undefined || (isRecord(related) && typeof related.taskId === "string");
}

const onlyKeys = (message: Record<string, unknown>, allowed: readonly string[]) => Object.keys(message).every((key) => allowed.includes(key));

export function isRequest(message: unknown): message is JsonRpcRequest {
  return (
    isRecord(message) && message.jsonrpc === "2.0" && isId(message.id) && typeof message.method === "string" &&
    validParams(message.params) && onlyKeys(message, ["jsonrpc", "id", "method", "params"])
  );
}

export function isNotification(message: unknown): message is JsonRpcNotification {
  return (
    isRecord(message) && message.jsonrpc === "2.0" && typeof message.method === "string" &&
    validParams(message.params) && onlyKeys(message, ["jsonrpc", "method", "params"])
  );
}

/** A response a client posted (to a server request we never send): accepted and ignored, as the SDK does. */
export function isResponse(message: unknown): boolean {
  if (!isRecord(message) || message.jsonrpc !== "2.0") return false;
  if ("result" in message) {
    const meta = isRecord(message.result) ? message.result._meta : undefined;
    return isId(message.id) && isRecord(message.result) && (meta === undefined || isRecord(meta)) && onlyKeys(message, ["jsonrpc", "id", "result"]);
  }
  const { error } = message;
  return (
    (message.id === undefined || isId(message.id)) && isRecord(error) && Number.isSafeInteger(error.code) &&
    typeof error.message === "string" && onlyKeys(message, ["jsonrpc", "id", "error"])
  );
}

/**
 * The id an error answer to the body repeats: a single message's `id` when it names a method
 * and its id is a string or number, otherwise null (the SDK's rule: an unreadable body, a
 * notification, a posted response or a batch has no one request to answer).
 */
export function echoableId(body: unknown): RequestId | null {
  if (!isRecord(body) || typeof body.method !== "string") return null;
  return typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
}

/** A JSON-RPC error answered as the whole HTTP response, in the SDK's key order. */
export function errorResponse(status: number, code: number, message: string, options: { id?: RequestId | null; data?: unknown; headers?: HeadersInit } = {}): Response {
  const error = { code, message, ...(options.data === undefined ? {} : { data: options.data }) };
  return Response.json({ jsonrpc: "2.0", error, id: options.id ?? null }, { status, ...(options.headers ? { headers: options.headers } : {}) });
}

/** A request's answer as JSON text: its result (JSON text already) or its error. */
export const resultText = (id: RequestId, result: string) => `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
export const errorText = (id: RequestId, code: number, message: string) => JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

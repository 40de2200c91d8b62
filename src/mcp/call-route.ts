import type { Context } from "hono";
import type { Env } from "@/env";
import type { CheckAdmission } from "@/lib/auth/gate-protocol";
import { markMcpToolRequest } from "@/lib/auth/mcp-tool-requests";
import { sha256Hex } from "@/lib/crypto";
import type { ErrorBody } from "@/lib/errors";
import type { CallToolResult } from "./mcp-types";
import type { ArgumentPlaces } from "./tool-input";
import { listNames, namedUnknowns } from "@/lib/echoed-names";
import { API_BASE } from "@/lib/api-base";

/** Sends a tool's request to its route (tool-routes.ts), as if a partner had sent it. */
export type PartnerApiFetch = (request: Request, env: Env, executionCtx: Context["executionCtx"]) => Response | Promise<Response>;

/** What a tool call carries over from the MCP request that made it. */
export interface CallerRequest {
  /** The /mcp request's URL: the sub-request goes to the same origin. */
  url: string;
  authorization: string;
  clientIp: string | undefined;
  requestId: string;
  env: Env;
  executionCtx: Context["executionCtx"];
  /**
   * What the /mcp request's gate call decided of the called tool's route (docs/decisions/sdk-and-mcp.md),
   * taken by the first tool call; a call without it (one of a 2025-03-26 batch) is admitted by its route's own gate call.
   */
  routeAdmission: CheckAdmission | undefined;
}

/** A tool as its calls need it: its name (for derived keys), its route and where each argument goes. */
export interface RouteCall {
  name: string;
  method: string;
  path: string;
  /** The route's rate-limit bucket, which its admission is for. */
  bucket: string;
  places: ArgumentPlaces;
}

/** JSON with object keys sorted, so the same arguments always give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The Idempotency-Key of a write: the caller's own, or one derived from the tool and its
 * arguments, so an agent repeating a call (after a timeout, or by mistake) gets the first
 * call's answer back from the API instead of a second booking, message or call.
 */
async function idempotencyKeyOf(tool: string, args: Record<string, unknown>): Promise<string> {
  const { idempotency_key: own, ...rest } = args;
  if (own !== undefined && own !== null && own !== "") return String(own);
  return `mcp-${tool}-${await sha256Hex(canonicalJson(rest))}`;
}

/**
 * A path parameter as one segment of the route's own path. `.` and `..` would be resolved by
 * the URL (`/contacts/..` is `/`), so they are escaped twice: the route then sees `%2E` and
 * answers with its own message for a value that is not an id.
 *
 * Anything but a string goes as its JSON text (absent as `null`): `String()` would turn an
 * object into `[object Object]` (or throw, for `{"toString": 1}`), a one-item array into its
 * item, and an absent value into an empty segment that names another route. A path parameter
 * is an id, which no JSON text of a number, boolean, null, object or array is, so the route
 * refuses each with its own message for that parameter.
 */
function pathSegment(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return /^\.{1,2}$/.test(text) ? text.replaceAll(".", "%252E") : encodeURIComponent(text);
}

/** The route's request from the tool's arguments: path parameters, query string and JSON body. */
async function routeRequest(tool: RouteCall, args: Record<string, unknown>, caller: CallerRequest): Promise<Request> {
  const { places } = tool;
  const path = tool.path.replace(/\{([^}]+)\}/g, (_, name: string) => pathSegment(args[name]));
  const url = new URL(`${API_BASE}${path}`, caller.url);
  // An argument the body takes goes in the body (booking takes agent_uuid in either).
  for (const name of places.query) {
    const value = args[name];
    if (value !== undefined && value !== null && !places.body.includes(name)) url.searchParams.set(name, String(value));
  }
  const headers = new Headers({ Authorization: caller.authorization, "X-Request-Id": caller.requestId });
  if (caller.clientIp) headers.set("CF-Connecting-IP", caller.clientIp);
  const method = tool.method.toUpperCase();
  if (method === "POST") headers.set("Idempotency-Key", await idempotencyKeyOf(tool.name, args));
  let body: string | undefined;
  if (places.body.length > 0 || method === "POST") {
    // Canonical like the derived key: the API replays a key only for the very same body bytes,
    // so a repeat whose nested keys come in another order must still produce them.
    body = canonicalJson(Object.fromEntries(places.body.filter((name) => args[name] !== undefined).map((name) => [name, args[name]])));
    headers.set("Content-Type", "application/json");
  }
  return new Request(url, { method, headers, body });
}

const REPLAYED_NOTE =
  "Replayed: an identical call (same arguments) was made within the last 24 hours; this is its stored answer and nothing was done " +
  "again. To do it again on purpose (or to try again after fixing what refused it), call with a new idempotency_key.";

/** A refused call as a tool error: the API's own message, its code and status, and when to retry. */
function toolError(status: number, envelope: Partial<ErrorBody>, response: Response): CallToolResult {
  const retryAfter = response.headers.get("Retry-After");
  const error = typeof envelope.error === "string" ? envelope.error : `HTTP ${status}`;
  const code = typeof envelope.code === "string" ? envelope.code : "error";
  const text = `${error} (HTTP ${status}, code ${code}${retryAfter === null ? "" : `, retry after ${retryAfter} s`})`;
  return {
    isError: true,
    content: [{ type: "text", text }],
    structuredContent: { ...envelope, status, ...(retryAfter === null ? {} : { retry_after_seconds: Number(retryAfter) }) },
  };
}

/** A call refused before it reaches its route, in the API's envelope of a validation error. */
function refusedCall(error: string, details: { field: string; message: string }[]): CallToolResult {
  const envelope: ErrorBody = { success: false, error, code: "validation_error", details };
  return { isError: true, content: [{ type: "text", text: `${error} (code validation_error)` }], structuredContent: { ...envelope } };
}

/**
 * Arguments the tool does not take, refused as the API refuses unknown body fields: an agent
 * guessing a name (`name` for `q`) must hear so rather than get an unfiltered answer. Only the
 * first few are named, each cut short, once in the message and once in `details`, so the answer
 * stays under 4 KB whatever names were sent (lib/echoed-names.ts).
 */
function unknownArguments(places: ArgumentPlaces, args: Record<string, unknown>, takesIdempotencyKey: boolean): CallToolResult | undefined {
  const known = new Set([...places.path, ...places.query, ...places.body, ...(takesIdempotencyKey ? ["idempotency_key"] : [])]);
  const unknown = Object.keys(args).filter((name) => !known.has(name));
  if (unknown.length === 0) return undefined;
  const names = namedUnknowns(unknown);
  const error = `Unknown argument${unknown.length > 1 ? "s" : ""}: ${listNames(names)}`;
  return refusedCall(error, names.named.map((field) => ({ field, message: "Unknown argument" })));
}

/**
 * Query arguments and the idempotency key travel as text (in the URL, in a header): a string,
 * number or boolean goes as its text, for the route to check like any query string. An object
 * or array has no such text (`String()` makes `[object Object]`, or `a,b` of an array, which a
 * free-text argument like `q` would search for), so the call is refused, naming the argument.
 */
function nonTextArguments(tool: RouteCall, args: Record<string, unknown>): CallToolResult | undefined {
  const { places } = tool;
  const asText = [...places.query.filter((name) => !places.body.includes(name)), ...(tool.method === "post" ? ["idempotency_key"] : [])];
  const details = asText
    .filter((name) => args[name] !== null && typeof args[name] === "object")
    .map((field) => ({ field, message: `${field} must be a string, a number or a boolean, not ${Array.isArray(args[field]) ? "an array" : "an object"}` }));
  return details.length === 0 ? undefined : refusedCall(details[0]!.message, details);
}

/** The refusal of arguments the call cannot send to its route, or nothing: decided before the gate is asked. */
export const refusedArguments = (tool: RouteCall, args: Record<string, unknown>): CallToolResult | undefined =>
  unknownArguments(tool.places, args, tool.method === "post") ?? nonTextArguments(tool, args);

/** Carries out a tool call through its route and turns the answer into the tool's result. */
export async function callRoute(send: PartnerApiFetch, tool: RouteCall, args: Record<string, unknown>, caller: CallerRequest): Promise<CallToolResult> {
  // One admission, one route request: a second call in the same request asks the gate itself.
  const admission = caller.routeAdmission;
  caller.routeAdmission = undefined;
  // The gate decided the route only of a call whose arguments passed (routeChecksOf); any other is checked here.
  const refused = admission ? undefined : refusedArguments(tool, args);
  if (refused) return refused;
  const request = await routeRequest(tool, args, caller);
  markMcpToolRequest(request, { bucket: tool.bucket, ...(admission && "decision" in admission ? { admission } : {}) });
  const response = await send(request, caller.env, caller.executionCtx);
  // The route's JSON text is the result's text and its structured content as it is: an answer
  // is parsed only when it is a refusal, whose envelope the tool error quotes.
  const text = await response.text();
  // (Every route answers a JSON object; anything else would be a bug, answered as the route's error below.)
  const result: CallToolResult = response.ok && text.startsWith("{")
    ? { content: [{ type: "text", text }], structuredJson: text }
    : toolError(response.status, JSON.parse(text) as Partial<ErrorBody>, response);
  // An agent must be able to tell "done again" from "already done", and a refusal it may have
  // cured meanwhile (a wallet topped up, a slot freed) from a fresh one: the API keeps both 24 hours.
  if (response.headers.get("Idempotent-Replayed") === "true") {
    result.content.push({ type: "text", text: REPLAYED_NOTE });
    result._meta = { "partner-api/replayed": true };
  }
  return result;
}

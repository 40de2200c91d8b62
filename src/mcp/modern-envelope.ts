import { z } from "@hono/zod-openapi";
import { clientInfoSchema, isClientInfo } from "./client-info";
import { INVALID_PARAMS, isRecord, type JsonRpcNotification, type JsonRpcRequest } from "./jsonrpc";
import { HEADER_MISMATCH, isModernVersion, META, MODERN_VERSIONS, UNSUPPORTED_VERSION } from "./protocol-versions";

/**
 * The 2026-07-28 era's per-request checks, in the SDK's order and words: the `_meta` envelope a
 * request carries, and the standard headers that must mirror its body (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name). Each refusal is an HTTP status and a JSON-RPC error.
 */

export interface Refusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** The request's standard headers, without the optional whitespace HTTP allows around a value. */
export interface StandardHeaders {
  version: string | undefined;
  method: string | undefined;
  name: string | undefined;
}
export const standardHeadersOf = (headers: Headers): StandardHeaders => ({
  version: headers.get("mcp-protocol-version")?.replace(/^[ \t]+|[ \t]+$/g, "") ?? undefined,
  method: headers.get("mcp-method")?.replace(/^[ \t]+|[ \t]+$/g, "") ?? undefined,
  name: headers.get("mcp-name")?.replace(/^[ \t]+|[ \t]+$/g, "") ?? undefined,
});

const metaOf = (params: unknown) => (isRecord(params) && isRecord(params._meta) ? params._meta : undefined);
/** A message claims the 2026-07-28 envelope when its `_meta` names a protocol version, valid or not. */
export const claimsEnvelope = (params: unknown) => {
  const meta = metaOf(params);
  return meta !== undefined && META.protocolVersion in meta;
};
const claimedVersion = (params: unknown) => {
  const value = metaOf(params)?.[META.protocolVersion];
  return typeof value === "string" ? value : undefined;
};

/**
 * The envelope's schema, for the wording of a refusal only: a well-formed envelope is
 * recognised without it. The client's capabilities are an object; what is inside is not ours to
 * check (no tool of ours asks anything of the client).
 */
const envelopeSchema = z.looseObject({
  progressToken: z.union([z.string(), z.int()]).optional(),
  [META.protocolVersion]: z.string(),
  [META.clientInfo]: clientInfoSchema.optional(),
  [META.clientCapabilities]: z.looseObject({}),
  [META.logLevel]: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).optional(),
});
const REQUIRED = [META.protocolVersion, META.clientCapabilities];

/** The first problem of a request's envelope, as the SDK names it (`key`, `problem`), or none. */
function envelopeIssue(meta: Record<string, unknown>): { key: string; problem: string } | undefined {
  const missing = REQUIRED.find((key) => !(key in meta));
  if (missing) return { key: missing, problem: "missing" };
  const info = meta[META.clientInfo];
  const token = meta.progressToken;
  const fine =
    typeof meta[META.protocolVersion] === "string" && isRecord(meta[META.clientCapabilities]) &&
    (info === undefined || isClientInfo(info)) &&
    (token === undefined || typeof token === "string" || Number.isSafeInteger(token)) &&
    (meta[META.logLevel] === undefined || envelopeSchema.shape[META.logLevel].safeParse(meta[META.logLevel]).success);
  if (fine) return undefined;
  const issue = envelopeSchema.safeParse(meta).error?.issues[0];
  return issue && { key: issue.path.length > 0 ? issue.path.map(String).join(".") : "_meta", problem: issue.message };
}

const mismatch = (header: string, body: string): Refusal => ({
  status: 400,
  code: HEADER_MISMATCH,
  message: `Bad Request: the request headers and body disagree: ${body}`,
  data: { mismatch: { header, body } },
});
const invalidEnvelope = (issue: { key: string; problem: string }): Refusal => ({
  status: 400,
  code: INVALID_PARAMS,
  message: `Invalid _meta envelope for protocol revision 2026-07-28: ${issue.key}: ${issue.problem}`,
  data: { envelope: issue },
});
const unsupported = (requested: string): Refusal => ({
  status: 400,
  code: UNSUPPORTED_VERSION,
  message: `Unsupported protocol version: ${requested}`,
  data: { supported: [...MODERN_VERSIONS], requested },
});

/** What a single message is: served by the 2025 era, the 2026-07-28 era, or refused before either. */
export type Era = { era: "legacy" } | { era: "modern" } | { era: "refused"; refusal: Refusal };

/** `tools/call` names its tool in Mcp-Name as well as in the body. */
const NAME_FIELD: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** The SDK's Mcp-Name value: the text, or the UTF-8 inside `=?base64?...?=`; undefined when that is not canonical Base64. */
function decodedName(value: string): string | undefined {
  if (!(value.startsWith("=?base64?") && value.endsWith("?="))) return value;
  const b64 = value.slice(9, -2);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(b64), (char) => char.codePointAt(0)!));
  } catch {
    return undefined;
  }
}

/** A 2026-07-28 request's standard headers against its body (the SDK's validateStandardRequestHeaders). */
function headerRefusal(request: JsonRpcRequest, headers: StandardHeaders, claimed: string): Refusal | undefined {
  const { method, params } = request;
  if (headers.version === undefined) {
    return mismatch("(missing)", `the body envelope names protocol version ${claimed} but the required MCP-Protocol-Version header is absent`);
  }
  if (headers.method === undefined) return mismatch("(missing)", `the body names method ${method} but the required Mcp-Method header is absent`);
  const field = Object.hasOwn(NAME_FIELD, method) ? NAME_FIELD[method]! : undefined;
  if (field === undefined) return undefined;
  const bodyValue = isRecord(params) && typeof params[field] === "string" ? params[field] : undefined;
  if (headers.name === undefined) {
    return bodyValue === undefined ? undefined : mismatch("(missing)", `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`);
  }
  const decoded = decodedName(headers.name);
  if (decoded === undefined) return mismatch(headers.name, "the Mcp-Name header carries an invalid Base64 sentinel value");
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return mismatch(headers.name, `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${decoded}"`);
  }
  return undefined;
}

/**
 * The era of a single JSON-RPC request (the SDK's classifyInboundRequest, then the modern
 * path's version and header checks). An `initialize` without a valid modern envelope is the
 * 2025 handshake; a request with the envelope claim is the 2026-07-28 era's, checked here.
 */
export function requestEra(request: JsonRpcRequest, headers: StandardHeaders): Era {
  const { method, params } = request;
  const headerModern = headers.version !== undefined && isModernVersion(headers.version);
  const claim = claimsEnvelope(params);
  const meta = metaOf(params);
  if (method === "initialize") {
    const validModernClaim = claim && meta !== undefined && isModernVersion(claimedVersion(params) ?? "") && envelopeIssue(meta) === undefined;
    if (!validModernClaim) {
      if (headerModern) return { era: "refused", refusal: mismatch(headers.version!, "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header") };
      return { era: "legacy" };
    }
  }
  if (claim) {
    const issue = meta === undefined ? undefined : envelopeIssue(meta);
    if (issue) return { era: "refused", refusal: invalidEnvelope(issue) };
    const claimed = claimedVersion(params)!;
    if (headers.version !== undefined && headers.version !== claimed) {
      return { era: "refused", refusal: mismatch(headers.version, `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${headers.version}`) };
    }
    if (headers.method !== undefined && headers.method !== method) {
      return { era: "refused", refusal: mismatch(headers.method, `the body names method ${method} but the Mcp-Method header names ${headers.method}`) };
    }
    if (!(MODERN_VERSIONS as readonly string[]).includes(claimed)) return { era: "refused", refusal: unsupported(claimed) };
    const refusal = headerRefusal(request, headers, claimed);
    return refusal ? { era: "refused", refusal } : { era: "modern" };
  }
  if (headerModern) {
    const present = meta ?? {};
    const missingKeys = REQUIRED.filter((key) => !(key in present));
    const missing = meta === undefined ? ["_meta"] : missingKeys.length > 0 ? missingKeys : [META.protocolVersion];
    return {
      era: "refused",
      refusal: {
        status: 400,
        code: INVALID_PARAMS,
        message: `Invalid params: the MCP-Protocol-Version header names protocol revision ${headers.version}, but the request is missing the required per-request envelope key(s): ${missing.join(", ")}`,
        data: { envelope: { missing } },
      },
    };
  }
  return { era: "legacy" };
}

/** The era of a single notification: a 2026-07-28 one is accepted as it is, a 2025 one by the legacy transport's checks. */
export function notificationEra(notification: JsonRpcNotification, headers: StandardHeaders): Era {
  const { method, params } = notification;
  const headerModern = headers.version !== undefined && isModernVersion(headers.version);
  if (claimsEnvelope(params)) {
    const claimed = claimedVersion(params);
    if (claimed === undefined) {
      const meta = metaOf(params)!;
      const problem = envelopeSchema.shape[META.protocolVersion].safeParse(meta[META.protocolVersion]).error?.issues[0]?.message ?? "expected a protocol version string";
      return { era: "refused", refusal: invalidEnvelope({ key: META.protocolVersion, problem }) };
    }
    if (headers.version !== undefined && headers.version !== claimed) {
      return { era: "refused", refusal: mismatch(headers.version, `the notification envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${headers.version}`) };
    }
    const modern = isModernVersion(claimed);
    if (modern && headers.method !== undefined && headers.method !== method) {
      return { era: "refused", refusal: mismatch(headers.method, `the notification body names method ${method} but the Mcp-Method header names ${headers.method}`) };
    }
    return servedVersion(claimed);
  }
  if (headerModern) {
    if (headers.method !== undefined && headers.method !== method) {
      return { era: "refused", refusal: mismatch(headers.method, `the notification body names method ${method} but the Mcp-Method header names ${headers.method}`) };
    }
    return servedVersion(headers.version!);
  }
  return { era: "legacy" };
}

/** A 2026-07-28-era message naming a revision we do not serve is refused, a notification too. */
const servedVersion = (version: string): Era =>
  (MODERN_VERSIONS as readonly string[]).includes(version) ? { era: "modern" } : { era: "refused", refusal: unsupported(version) };

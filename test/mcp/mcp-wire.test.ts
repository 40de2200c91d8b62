import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgency, createKey } from "../helpers/factories";
import { api, BASE } from "../helpers/http";

/**
 * /mcp's transport, message by message, as the official MCP SDK's server (2.4) answered each
 * before ours replaced it: statuses, JSON-RPC codes and messages, ids, answer formats. The
 * expected answers are the SDK's own, recorded from it (this file passed against the SDK's
 * server too, `listChanged` aside: docs/decisions/sdk-and-mcp.md); the official client
 * (mcp.test.ts) is the other half of the check.
 */

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "wire", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const modernHeaders = (method: string, more: Record<string, string> = {}) => ({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, ...more });

async function keyToken(scopes: string[] = ["contacts"]) {
  return (await createKey(await createAgency(), { scopes })).token;
}

/** A POST to /mcp with a raw body (text as is, anything else as JSON) and the transport's usual headers. */
async function post(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await exports.default.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get("Content-Type") ?? "";
  // One JSON-RPC message, a batch's array of them, or nothing (202). Never an event stream.
  expect(type.startsWith("text/event-stream")).toBe(false);
  const json: unknown = text === "" ? [] : JSON.parse(text);
  const messages = Array.isArray(json) ? json : [json];
  return { status: res.status, type, text, messages, headers: res.headers };
}

/** zod's issues as the SDK quotes them in a message. */
const issues = (...list: { expected: string; path: string[]; received: string }[]) =>
  JSON.stringify(
    list.map(({ expected, path, received }) => ({ expected, code: "invalid_type", path, message: `Invalid input: expected ${expected}, received ${received}` })),
    null,
    2,
  );

const rpcError = (code: number, message: string, id: unknown = null, data?: unknown) => ({ jsonrpc: "2.0", error: { code, message, ...(data === undefined ? {} : { data }) }, id });

describe("MCP wire format", () => {
  it("refuses a body that is not one valid JSON-RPC message with 400 and the SDK's error, repeating the id only when it is readable", async () => {
    const token = await keyToken();
    const invalid = (id: unknown) => rpcError(-32600, "Bad Request: the request body is not a valid JSON-RPC message", id);
    for (const [body, id] of [
      [{ id: 1, method: "tools/list" }, 1],
      [{ jsonrpc: "1.0", id: 1, method: "tools/list" }, 1],
      [{ jsonrpc: "2.0", id: {}, method: "tools/list" }, null],
      [{ jsonrpc: "2.0", id: null, method: "tools/list" }, null],
      [{ jsonrpc: "2.0", id: 1.5, method: "tools/list" }, 1.5],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: [] }, 1],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: "x" }, 1],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: 5 } }, 1],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", extra: true }, 1],
      [{ jsonrpc: "2.0", id: 1, method: 5 }, null],
      [{ jsonrpc: "2.0", id: 1, method: "ping", result: {} }, 1],
      [null, null],
      ["42", null],
    ] as const) {
      const res = await post(token, typeof body === "string" ? body : body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.messages, JSON.stringify(body)).toEqual([invalid(id)]);
    }
    // An integer id beyond the safe range is no id; it is repeated as JSON reads it.
    const big = await post(token, `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`);
    expect(big.status).toBe(400);
    expect(big.messages).toEqual([invalid(1.2345678901234568e29)]);

    for (const text of ["{oops", ""]) {
      const res = await post(token, text);
      expect(res.status).toBe(400);
      expect(res.messages).toEqual([rpcError(-32700, "Parse error: Invalid JSON")]);
    }
  });

  it("answers a 2025-era request as one JSON-RPC response, with its id as sent, however long", async () => {
    const token = await keyToken();
    const id = "x".repeat(5_000);
    const res = await post(token, { jsonrpc: "2.0", id, method: "ping" });
    expect(res.status).toBe(200);
    expect(res.type).toBe("application/json");
    expect(res.text).toBe(JSON.stringify({ result: {}, jsonrpc: "2.0", id }));
  });

  it("answers a 2025-era batch as the array of its requests' responses, even of one", async () => {
    const token = await keyToken();
    const one = await post(token, [{ jsonrpc: "2.0", id: 9, method: "ping" }]);
    expect(one.status).toBe(200);
    expect(one.type).toBe("application/json");
    expect(one.text).toBe(JSON.stringify([{ result: {}, jsonrpc: "2.0", id: 9 }]));
    const two = await post(token, [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: "b", method: "tools/explode" }]);
    expect(two.text).toBe(JSON.stringify([{ result: {}, jsonrpc: "2.0", id: 1 }, { jsonrpc: "2.0", id: "b", error: { code: -32601, message: "Method not found" } }]));
  });

  it("answers unknown methods -32601 and malformed params -32602 in-band, as the SDK words them", async () => {
    const token = await keyToken();
    const cases: [unknown, unknown][] = [
      [{ jsonrpc: "2.0", id: 1, method: "tools/explode" }, { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }],
      [{ jsonrpc: "2.0", id: "abc", method: "resources/list" }, { jsonrpc: "2.0", id: "abc", error: { code: -32601, message: "Method not found" } }],
      [{ jsonrpc: "2.0", id: 2, method: "server/discover" }, { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } }],
      [
        { jsonrpc: "2.0", id: 3, method: "tools/call" },
        { jsonrpc: "2.0", id: 3, error: { code: -32602, message: `Invalid tools/call request: ${issues({ expected: "object", path: ["params"], received: "undefined" })}` } },
      ],
      [
        { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: 5 } },
        { jsonrpc: "2.0", id: 4, error: { code: -32602, message: `Invalid tools/call request: ${issues({ expected: "string", path: ["params", "name"], received: "number" })}` } },
      ],
      [
        { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "search_contacts", arguments: [] } },
        { jsonrpc: "2.0", id: 5, error: { code: -32602, message: `Invalid tools/call request: ${issues({ expected: "record", path: ["params", "arguments"], received: "array" })}` } },
      ],
      // A tool outside the key's scopes does not exist for it.
      [{ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "get_wallet" } }, { jsonrpc: "2.0", id: 6, error: { code: -32602, message: "Tool get_wallet not found" } }],
      // The SDK reports malformed initialize params as an internal error quoting zod's issues.
      [
        { jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: 5 } },
        {
          jsonrpc: "2.0",
          id: 7,
          error: {
            code: -32603,
            message: issues(
              { expected: "string", path: ["params", "protocolVersion"], received: "number" },
              { expected: "object", path: ["params", "capabilities"], received: "undefined" },
              { expected: "object", path: ["params", "clientInfo"], received: "undefined" },
            ),
          },
        },
      ],
    ];
    for (const [request, answer] of cases) {
      const res = await post(token, request);
      expect(res.status, JSON.stringify(request)).toBe(200);
      expect(res.messages, JSON.stringify(request)).toEqual([answer]);
    }
  });

  it("negotiates initialize as the SDK: the client's 2025-era version if served, else the newest", async () => {
    const token = await keyToken();
    const initialize = (protocolVersion: string) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "a", version: "1" } } });
    for (const [asked, answered] of [["2025-06-18", "2025-06-18"], ["2024-11-05", "2024-11-05"], ["1999-01-01", "2025-11-25"], ["2026-07-28", "2025-11-25"]]) {
      const res = await post(token, initialize(asked!));
      expect(res.messages[0].result).toMatchObject({
        protocolVersion: answered,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "partner-api", title: "Partner API", version: "2.0.0" },
        instructions: expect.stringMatching(/^Acts for one agency of the Partner API/),
      });
    }
    const withHeader = await post(token, initialize("2025-06-18"), { "MCP-Protocol-Version": "2026-07-28" });
    expect(withHeader.status).toBe(400);
    expect(withHeader.messages[0].error.code).toBe(-32020);
  });

  it("takes notifications and posted responses with 202 and no body, and answers only the requests of a batch", async () => {
    const token = await keyToken();
    for (const body of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/whatever", params: { a: 1 } },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } },
      [{ jsonrpc: "2.0", method: "notifications/initialized" }],
    ]) {
      const res = await post(token, body);
      expect(res.status, JSON.stringify(body)).toBe(202);
      expect(res.text).toBe("");
    }
    // A request after a notification, and an error beside a result: each request answered, in order.
    const batch = await post(token, [{ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 1, method: "tools/explode" }, { jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(batch.status).toBe(200);
    expect(batch.messages).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }, { result: {}, jsonrpc: "2.0", id: 2 }]);

    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    for (const [body, message] of [
      [[], "Bad Request: empty JSON-RPC batch"],
      [[{ a: 1 }], "Bad Request: JSON-RPC batch contains an invalid message"],
      [[{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } }], "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later"],
      [Array.from({ length: 101 }, (_, i) => ping(i)), "Invalid Request: Batch must not exceed 100 messages"],
      [[{ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "a", version: "1" } } }, ping(2)], "Invalid Request: Only one initialization request is allowed"],
    ] as const) {
      const res = await post(token, body);
      expect(res.status, message).toBe(400);
      expect(res.messages).toEqual([rpcError(-32600, message)]);
    }
  });

  it("checks the 2025 transport's headers: protocol version, Accept, Content-Type, and POST only", async () => {
    const token = await keyToken();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const bad = await post(token, list, { "MCP-Protocol-Version": "2020-01-01" });
    expect(bad.status).toBe(400);
    expect(bad.messages).toEqual([
      rpcError(-32000, "Bad Request: Unsupported protocol version: 2020-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)"),
    ]);
    const noEnvelope = await post(token, list, { "MCP-Protocol-Version": "2026-07-28" });
    expect(noEnvelope.status).toBe(400);
    expect(noEnvelope.messages).toEqual([
      rpcError(-32602, "Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): _meta", 1, { envelope: { missing: ["_meta"] } }),
    ]);
    for (const accept of ["application/json", "text/event-stream", ""]) {
      const res = await post(token, list, { Accept: accept });
      expect(res.status, accept).toBe(406);
      expect(res.messages).toEqual([rpcError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream")]);
    }
    const text = await post(token, list, { "Content-Type": "text/plain" });
    expect(text.status).toBe(415);
    expect(text.messages).toEqual([rpcError(-32000, "Unsupported Media Type: Content-Type must be application/json")]);
    expect((await post(token, { jsonrpc: "2.0", id: 1, method: "ping" }, { "Content-Type": "application/json; charset=utf-8" })).status).toBe(200);

    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await exports.default.fetch(`${BASE}/mcp`, { method, headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("Allow")).toBe("POST");
      expect(await res.json()).toEqual(rpcError(-32000, "Method not allowed."));
    }
  });

  it("serves the 2026-07-28 era as JSON, checking the envelope and the headers that mirror the body", async () => {
    const token = await keyToken();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    for (const accept of ["application/json", "text/event-stream", ""]) {
      const res = await post(token, list, { ...modernHeaders("tools/list"), Accept: accept });
      expect(res.status).toBe(200);
      expect(res.type).toBe("application/json");
      expect(res.messages[0].result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private", _meta: { "io.modelcontextprotocol/serverInfo": { name: "partner-api" } } });
    }
    const discover = await post(token, { jsonrpc: "2.0", id: "probe", method: "server/discover", params: { _meta: MODERN_META } }, modernHeaders("server/discover"));
    expect(discover.messages[0]).toMatchObject({ id: "probe", result: { supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: false } }, resultType: "complete" } });

    // A method this era does not have (ping and initialize included) is HTTP 404.
    for (const method of ["ping", "initialize", "tools/explode"]) {
      const res = await post(token, { jsonrpc: "2.0", id: 1, method, params: { _meta: MODERN_META } }, modernHeaders(method));
      expect(res.status, method).toBe(404);
      expect(res.messages).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }]);
    }

    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_contacts", arguments: {}, _meta: MODERN_META } };
    const mismatch = (header: string, body: string) => rpcError(-32020, `Bad Request: the request headers and body disagree: ${body}`, 1, { mismatch: { header, body } });
    for (const [headers, answer] of [
      [modernHeaders("tools/call"), mismatch("(missing)", 'the body carries params.name="search_contacts" but the required Mcp-Name header is absent')],
      [modernHeaders("tools/call", { "Mcp-Name": "get_wallet" }), mismatch("get_wallet", 'the body carries params.name="search_contacts" but the Mcp-Name header names "get_wallet"')],
      [{ "MCP-Protocol-Version": "2026-07-28" }, mismatch("(missing)", "the body names method tools/call but the required Mcp-Method header is absent")],
      [{ "Mcp-Method": "tools/call" }, mismatch("(missing)", "the body envelope names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent")],
      [modernHeaders("tools/list"), mismatch("tools/list", "the body names method tools/call but the Mcp-Method header names tools/list")],
      [modernHeaders("tools/call", { "MCP-Protocol-Version": "2025-06-18" }), mismatch("2025-06-18", "the body envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-06-18")],
    ] as const) {
      const res = await post(token, call, headers);
      expect(res.status).toBe(400);
      expect(res.messages).toEqual([answer]);
    }
    // The name may come Base64-encoded, as the spec allows for any text.
    const encoded = await post(token, call, modernHeaders("tools/call", { "Mcp-Name": `=?base64?${btoa("search_contacts")}?=` }));
    expect(encoded.messages[0].result.structuredContent.success).toBe(true);

    const withVersion = (version: unknown) => ({ ...list, params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": version } } });
    const unsupported = await post(token, withVersion("2027-01-01"), modernHeaders("tools/list", { "MCP-Protocol-Version": "2027-01-01" }));
    expect(unsupported.status).toBe(400);
    expect(unsupported.messages).toEqual([rpcError(-32022, "Unsupported protocol version: 2027-01-01", 1, { supported: ["2026-07-28"], requested: "2027-01-01" })]);
    for (const [meta, key, problem] of [
      [{ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }, "io.modelcontextprotocol/clientCapabilities", "missing"],
      [{ ...MODERN_META, "io.modelcontextprotocol/protocolVersion": 5 }, "io.modelcontextprotocol/protocolVersion", "Invalid input: expected string, received number"],
      [{ ...MODERN_META, "io.modelcontextprotocol/clientInfo": "x" }, "io.modelcontextprotocol/clientInfo", "Invalid input: expected object, received string"],
    ] as const) {
      const res = await post(token, { ...list, params: { _meta: meta } }, modernHeaders("tools/list"));
      expect(res.status).toBe(400);
      expect(res.messages).toEqual([rpcError(-32602, `Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}`, 1, { envelope: { key, problem } })]);
    }
    const notification = await post(token, { jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } }, modernHeaders("notifications/initialized"));
    expect(notification.status).toBe(202);
  });

  it("returns the route's own JSON text as a tool's result, byte for byte, in either era", async () => {
    const token = await keyToken();
    await api("POST", "/contacts", { token, body: { first_name: "Byte", last_name: "Exact", tags: ["é", "\u2028"] } });
    const rest = await exports.default.fetch(`${BASE}/api/v2/contacts?limit=5`, { headers: { Authorization: `Bearer ${token}` } });
    const restText = await rest.text();
    const legacy = await post(token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_contacts", arguments: { limit: 5 } } });
    const modern = await post(token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_contacts", arguments: { limit: 5 }, _meta: MODERN_META } }, modernHeaders("tools/call", { "Mcp-Name": "search_contacts" }));
    for (const res of [legacy, modern]) {
      const { result } = res.messages[0];
      expect(result.content).toEqual([{ type: "text", text: restText }]);
      expect(result.structuredContent).toEqual(JSON.parse(restText));
    }
    expect(modern.messages[0].result).toMatchObject({ resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": { name: "partner-api" } } });
  });
});

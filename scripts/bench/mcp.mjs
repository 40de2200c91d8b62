// The MCP server's cost over the REST route it stands for (issue 22), measured by `npm run
// bench` on the current Worker, side by side (A B C, A B C, ...): `GET /contacts?limit=20`,
// the `search_contacts` tool asking the same page through POST /mcp, and `tools/list`.
// A tool call is one HTTP request that builds a stateless MCP server, passes the gate, then
// sends its route's request through the whole Worker (the gate again, the same D1 reads).
import { sideBySide } from "./measure.mjs";

const PAGE = 20;

const rpc = (method, params) => () => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

/** A JSON-RPC answer that is a result (and, for a tool, not a tool error). */
function rpcResult(check) {
  return (body) => {
    if (!body?.result) return `expected a JSON-RPC result: ${JSON.stringify(body).slice(0, 300)}`;
    if (body.result.isError) return `the tool refused: ${JSON.stringify(body.result.content).slice(0, 300)}`;
    return check(body.result);
  };
}

/** JSON, or the JSON of a server-sent event's data (the 2025 protocol's stateless answer). */
function parseAnswer(text) {
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  try {
    return JSON.parse(data ? data.slice("data: ".length) : text);
  } catch {
    return null;
  }
}

export async function measureMcp(base, agency, { rounds, warmup, seconds, connections, log }) {
  const auth = { Authorization: `Bearer ${agency.token}` };
  // The streamable HTTP transport's headers: a JSON body, and both answer types accepted.
  const mcpHeaders = { ...auth, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const sides = [
    {
      key: "rest",
      base,
      scenario: {
        name: `GET /contacts?limit=${PAGE}`,
        method: "GET",
        path: `/api/v2/contacts?limit=${PAGE}`,
        headers: auth,
      },
    },
    {
      key: "tool",
      base,
      scenario: {
        name: `MCP tools/call search_contacts (limit ${PAGE})`,
        method: "POST",
        path: "/mcp",
        headers: mcpHeaders,
        body: rpc("tools/call", { name: "search_contacts", arguments: { limit: PAGE } }),
        check: rpcResult((result) =>
          result.structuredContent?.contacts?.length === PAGE ? undefined : `expected ${PAGE} contacts: ${JSON.stringify(result).slice(0, 200)}`,
        ),
      },
    },
    {
      key: "list",
      base,
      scenario: {
        name: "MCP tools/list",
        method: "POST",
        path: "/mcp",
        headers: mcpHeaders,
        body: rpc("tools/list", {}),
        check: rpcResult((result) => (result.tools?.length === 14 ? undefined : `expected 14 tools, got ${result.tools?.length}`)),
      },
    },
  ];
  // Each answer checked once before the load (load() itself only counts statuses).
  for (const { scenario } of sides) {
    const res = await fetch(`${base}${scenario.path}`, { method: scenario.method, headers: scenario.headers, body: scenario.body?.() });
    const body = parseAnswer(await res.text());
    if (!res.ok) throw new Error(`${scenario.name}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const problem = scenario.check?.(body);
    if (problem) throw new Error(`${scenario.name}: ${problem}`);
  }
  log(`MCP: search_contacts and tools/list against GET /contacts, ${rounds} rounds side by side`);
  return (await sideBySide(sides, { rounds, warmup, seconds, connections, log })).bySide;
}

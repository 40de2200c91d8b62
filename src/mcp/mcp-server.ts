import { McpServer } from "@modelcontextprotocol/server";
import { hasAnyScope } from "@/lib/auth/scopes";
import { callRoute, type CallerRequest, type PartnerApiFetch, type RouteCall } from "./call-route";
import { toolInput } from "./tool-input";
import { scopesOf, tools, type McpTool } from "./tools";

export const MCP_SERVER_INFO = { name: "partner-api", title: "Partner API", version: "2.0.0" } as const;

const INSTRUCTIONS =
  "Acts for one agency of the Partner API: the agency of the API key in the Authorization header. Each tool is one " +
  "Partner API route (named in its description), with that route's checks, scope and per-key rate limit; a refused call " +
  "returns the API's own error message and code. Lists return one page: pass `pagination.next_cursor` back as `cursor` for " +
  "the next. Writes are safe to repeat: the same call with the same arguments within 24 hours returns the first answer.";

// A tool's input schema and argument places never change: built once per isolate, not per request.
const prepared = new Map<McpTool, { call: RouteCall; schema: ReturnType<typeof toolInput>["schema"] }>();
function prepare(tool: McpTool) {
  let ready = prepared.get(tool);
  if (!ready) {
    const { method, path } = tool.route;
    const { schema, places } = toolInput(tool.route, { idempotent: method === "post", ...(tool.refine ? { refine: tool.refine } : {}) });
    ready = { call: { name: tool.name, method, path, places }, schema };
    prepared.set(tool, ready);
  }
  return ready;
}

/**
 * The MCP server of one request: the tools the key's scopes allow, each carried out by its
 * route through the whole Worker (`send`), so the gate counts and checks it like any request.
 */
export function mcpServer(grantedScopes: readonly string[], send: PartnerApiFetch, caller: CallerRequest): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of tools) {
    if (!hasAnyScope(grantedScopes, scopesOf(tool))) continue;
    const { call, schema } = prepare(tool);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.purpose}\n\nCalls \`${call.method.toUpperCase()} /api/v2${call.path}\`: ${tool.route.description ?? ""}`,
        inputSchema: schema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (args: unknown) => callRoute(send, call, (args ?? {}) as Record<string, unknown>, caller),
    );
  }
  return server;
}

import { McpServer } from "@modelcontextprotocol/server";
import { hasAnyScope } from "@/lib/auth/scopes";
import { callRoute, type CallerRequest, type PartnerApiFetch } from "./call-route";
import { toolInput } from "./tool-input";
import { scopesOf, tools, type McpTool } from "./tools";

export const MCP_SERVER_INFO = { name: "partner-api", title: "Partner API", version: "2.0.0" } as const;

const INSTRUCTIONS =
  "Acts for one agency of the Partner API: the agency of the API key in the Authorization header. Each tool is one " +
  "Partner API route (named in its description), with that route's checks, scope and per-key rate limit; a refused call " +
  "returns the API's own error message and code. Lists return one page: pass `pagination.next_cursor` back as `cursor` for " +
  "the next. Writes are safe to repeat: the same call with the same arguments within 24 hours returns the first answer.";

// A tool's input schema and argument places never change: built once per isolate, not per request.
const inputs = new Map<McpTool, ReturnType<typeof toolInput>>();
const inputOf = (tool: McpTool) => {
  let input = inputs.get(tool);
  if (!input) {
    input = toolInput(tool.route, { idempotent: tool.route.method === "post", ...(tool.refine ? { refine: tool.refine } : {}) });
    inputs.set(tool, input);
  }
  return input;
};

/**
 * The MCP server of one request: the tools the key's scopes allow, each carried out by its
 * route through the whole Worker (`send`), so the gate counts and checks it like any request.
 */
export function mcpServer(grantedScopes: readonly string[], send: PartnerApiFetch, caller: CallerRequest): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of tools) {
    if (!hasAnyScope(grantedScopes, scopesOf(tool))) continue;
    const { schema, places } = inputOf(tool);
    const { method, path } = tool.route;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.purpose}\n\nCalls \`${method.toUpperCase()} /api/v2${path}\`: ${tool.route.description ?? ""}`,
        inputSchema: schema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (args: unknown) => callRoute(send, tool.name, { method, path }, places, (args ?? {}) as Record<string, unknown>, caller),
    );
  }
  return server;
}

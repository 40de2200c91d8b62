import { McpServer } from "@modelcontextprotocol/server";
import type { GateCheck } from "@/lib/auth/gate-protocol";
import { hasAnyScope } from "@/lib/auth/scopes";
import { rateLimitRule } from "@/lib/rate-limits";
import { API_PREFIX, callRoute, refusedArguments, type CallerRequest, type PartnerApiFetch, type RouteCall } from "./call-route";
import { toolInput } from "./tool-input";
import { scopesOf, tools, type McpTool } from "./tools";

export const MCP_SERVER_INFO = { name: "partner-api", title: "Partner API", version: "2.0.0" } as const;

const INSTRUCTIONS =
  "Acts for one agency of the Partner API: the agency of the API key in the Authorization header. Each tool is one " +
  "Partner API route (named in its description), with that route's checks, scope and per-key rate limit; a refused call " +
  "returns the API's own error message and code. Lists return one page: pass `pagination.next_cursor` back as `cursor` for " +
  "the next. Writes are safe to repeat: the same call with the same arguments within 24 hours returns the first answer.";

/** A tool as the isolate keeps it: its route call, input schema and the gate check of its route. */
interface PreparedTool {
  tool: McpTool;
  call: RouteCall;
  schema: ReturnType<typeof toolInput>["schema"];
  check: GateCheck;
}

// A tool's input schema, argument places and route check never change: built once per isolate.
let prepared: Map<string, PreparedTool> | undefined;
function preparedTools(): Map<string, PreparedTool> {
  prepared ??= new Map(
    tools.map((tool) => {
      const { method, path } = tool.route;
      const { schema, places } = toolInput(tool.route, { idempotent: method === "post", ...(tool.refine ? { refine: tool.refine } : {}) });
      const rule = rateLimitRule(method, path);
      const check: GateCheck = { bucket: rule.bucket, limit: rule.limit, windowSeconds: rule.windowSeconds, scopes: scopesOf(tool), write: method !== "get" };
      return [tool.name, { tool, call: { name: tool.name, method, path, bucket: rule.bucket, places }, schema, check }];
    }),
  );
  return prepared;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The gate check of the route a JSON-RPC message's tool call will reach, asked in the /mcp
 * request's own gate call; none for any other message, a tool this server does not have, or
 * arguments refused before the route (those never reach it, so its limit is not spent).
 */
export function routeChecksOf(message: unknown): GateCheck[] {
  if (!isRecord(message) || message.method !== "tools/call" || !isRecord(message.params)) return [];
  const { name, arguments: args = {} } = message.params;
  const ready = typeof name === "string" ? preparedTools().get(name) : undefined;
  if (!ready || !isRecord(args) || refusedArguments(ready.call, args)) return [];
  return [ready.check];
}

/** A server serves one request at a time (the MCP SDK's rule): a few are kept per tool set. */
const MAX_KEPT_PER_TOOL_SET = 16;
/** Distinct scope lists remembered; keys have few distinct ones, and forgetting costs one filter. */
const MAX_SCOPE_LISTS = 256;

/** Servers by protocol era and the tools they offer, and the tools offered by each scope list seen. */
const serversByToolSet = new Map<string, McpServer[]>();
const toolSetOfScopes = new Map<string, { key: string; offered: PreparedTool[] }>();
/**
 * Servers handed to a request that may not have connected yet: the SDK awaits between asking
 * for a server and connecting it, so "not connected" alone could hand one to two requests.
 */
const handedOut = new WeakSet<McpServer>();
let built = 0;

/** How many MCP servers this isolate has built (docs/decisions/sdk-and-mcp.md: once per tool set and concurrent request). */
export const mcpServersBuilt = () => built;

function buildServer(offered: readonly PreparedTool[], send: PartnerApiFetch): McpServer {
  built++;
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const { tool, call, schema } of offered) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.purpose}\n\nCalls \`${call.method.toUpperCase()} ${API_PREFIX}${call.path}\`: ${tool.route.description ?? ""}`,
        inputSchema: schema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      // What varies per request (the caller, its route admission) comes with the request's authInfo.
      (args: unknown, ctx) => callRoute(send, call, (args ?? {}) as Record<string, unknown>, ctx.http?.authInfo?.extra?.caller as CallerRequest),
    );
  }
  return server;
}

/**
 * An MCP server offering the tools the key's scopes allow, each carried out by its route
 * (`send`). Built once per isolate for each protocol era and set of tools, and again only
 * while all of those servers are serving other requests; the request's own data reaches the
 * tools as its authInfo. The eras are kept apart: the SDK pins an instance to the era it
 * negotiated. Within one, what an instance keeps of its last client (the version and
 * capabilities an initialize names) is that era's wire format, and capabilities no tool uses
 * (sampling, elicitation): every request is served alike whichever instance serves it.
 */
export function mcpServer(grantedScopes: readonly string[], send: PartnerApiFetch, era: "modern" | "legacy"): McpServer {
  const scopeKey = grantedScopes.join(" ");
  let set = toolSetOfScopes.get(scopeKey);
  if (!set) {
    const offered = [...preparedTools().values()].filter(({ tool }) => hasAnyScope(grantedScopes, scopesOf(tool)));
    if (toolSetOfScopes.size >= MAX_SCOPE_LISTS) toolSetOfScopes.clear();
    toolSetOfScopes.set(scopeKey, (set = { key: offered.map(({ tool }) => tool.name).join(" "), offered }));
  }
  const poolKey = `${era} ${set.key}`;
  let kept = serversByToolSet.get(poolKey);
  if (!kept) serversByToolSet.set(poolKey, (kept = []));
  const server = kept.find((candidate) => !handedOut.has(candidate) && !candidate.isConnected()) ?? buildServer(set.offered, send);
  if (!kept.includes(server) && kept.length < MAX_KEPT_PER_TOOL_SET) kept.push(server);
  handedOut.add(server);
  return server;
}

/**
 * The request `mcpServer` served is answered: its server is connected for as long as its
 * answer streams, and free for another request once that ends.
 */
export const releaseMcpServer = (server: McpServer | undefined) => void (server && handedOut.delete(server));

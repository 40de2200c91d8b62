import type { GateCheck } from "@/lib/auth/gate-protocol";
import { hasAnyScope } from "@/lib/auth/scopes";
import { rateLimitRule } from "@/lib/rate-limits";
import { API_BASE } from "@/lib/api-base";
import { refusedArguments, type RouteCall } from "./call-route";
import { isRecord } from "./jsonrpc";
import { toolInput } from "./tool-input";
import { scopesOf, tools, type McpTool } from "./tools";

export const SERVER_INFO = { name: "partner-api", title: "Partner API", version: "2.0.0" } as const;

export const INSTRUCTIONS =
  "Acts for one agency of the Partner API: the agency of the API key in the Authorization header. Each tool is one " +
  "Partner API route (named in its description), with that route's checks, scope and per-key rate limit; a refused call " +
  "returns the API's own error message and code. Lists return one page: pass `pagination.next_cursor` back as `cursor` for " +
  "the next. Writes are safe to repeat: the same call with the same arguments within 24 hours returns the first answer.";

/** A tool as the isolate keeps it: its route call, its listing and the gate check of its route. */
export interface PreparedTool {
  tool: McpTool;
  call: RouteCall;
  /** The tool as tools/list shows it, built on the first listing. */
  listing: () => Record<string, unknown>;
  check: GateCheck;
}

// A tool's input schema, argument places and route check never change: built once per isolate.
let prepared: Map<string, PreparedTool> | undefined;
function preparedTools(): Map<string, PreparedTool> {
  prepared ??= new Map(
    tools.map((tool) => {
      const { method, path } = tool.route;
      const { inputSchema, places } = toolInput(tool.route, { idempotent: method === "post", ...(tool.refine ? { refine: tool.refine } : {}) });
      const rule = rateLimitRule(method, path);
      const check: GateCheck = { bucket: rule.bucket, limit: rule.limit, windowSeconds: rule.windowSeconds, scopes: scopesOf(tool), write: method !== "get" };
      const call: RouteCall = { name: tool.name, method, path, bucket: rule.bucket, places };
      const listing = () => ({
        name: tool.name,
        title: tool.title,
        description: `${tool.purpose}\n\nCalls \`${method.toUpperCase()} ${API_BASE}${path}\`: ${tool.route.description ?? ""}`,
        inputSchema: inputSchema(),
        annotations: { title: tool.title, ...tool.annotations },
      });
      return [tool.name, { tool, call, listing, check }];
    }),
  );
  return prepared;
}

/**
 * The gate check of the route a JSON-RPC message's tool call will reach, asked in the /mcp
 * request's own gate call; none for any other message, a tool we do not have, or arguments
 * refused before the route (those never reach it, so its limit is not spent). At most one check,
 * for a single message, never a batch's: callRoute relies on an admitted call's arguments having
 * passed here, and on the one admission going to the one call.
 */
export function routeChecksOf(message: unknown): GateCheck[] {
  if (!isRecord(message) || message.method !== "tools/call" || !isRecord(message.params)) return [];
  const { name, arguments: args = {} } = message.params;
  const ready = typeof name === "string" ? preparedTools().get(name) : undefined;
  if (!ready || !isRecord(args) || refusedArguments(ready.call, args)) return [];
  return [ready.check];
}

/** The tools a key's scopes allow, by name, and its tools/list result per era as JSON text, built once. */
export interface ToolSet {
  byName: ReadonlyMap<string, PreparedTool>;
  listJson: (era: "legacy" | "modern") => string;
}

/** Distinct scope lists remembered; keys have few distinct ones, and forgetting costs one filter. */
const MAX_SCOPE_LISTS = 256;
const toolSetOfScopes = new Map<string, ToolSet>();
/** Tool sets by the tools they hold: two scope lists offering the same tools share their listing. */
const toolSets = new Map<string, ToolSet>();
let listsBuilt = 0;

/** How many tools/list answers this isolate has written (docs/decisions/sdk-and-mcp.md: once per tool set and era). */
export const toolListsBuilt = () => listsBuilt;

function buildToolSet(offered: PreparedTool[]): ToolSet {
  const lists = new Map<string, string>();
  return {
    byName: new Map(offered.map((ready) => [ready.tool.name, ready])),
    listJson: (era) => {
      let json = lists.get(era);
      if (json === undefined) {
        listsBuilt++;
        const listed = offered.map((ready) => ready.listing());
        const result =
          era === "legacy"
            ? { tools: listed }
            : { tools: listed, resultType: "complete", ttlMs: 0, cacheScope: "private", _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO } };
        lists.set(era, (json = JSON.stringify(result)));
      }
      return json;
    },
  };
}

/** The tools a key with these scopes may see and call. */
export function toolSetOf(grantedScopes: readonly string[]): ToolSet {
  const scopeKey = grantedScopes.join(" ");
  let set = toolSetOfScopes.get(scopeKey);
  if (!set) {
    const offered = [...preparedTools().values()].filter(({ tool }) => hasAnyScope(grantedScopes, scopesOf(tool)));
    const key = offered.map(({ tool }) => tool.name).join(" ");
    set = toolSets.get(key);
    if (!set) toolSets.set(key, (set = buildToolSet(offered)));
    if (toolSetOfScopes.size >= MAX_SCOPE_LISTS) toolSetOfScopes.clear();
    toolSetOfScopes.set(scopeKey, set);
  }
  return set;
}

import type { CountedAdmission } from "./gate-protocol";

/** What the /mcp request's one gate call decided of a tool call's route (docs/decisions/sdk-and-mcp.md). */
export interface McpToolAdmission {
  /** The route's rate-limit bucket: the admission holds for that route only. */
  bucket: string;
  /** Absent when the request's gate call did not decide it (a call of a batch): the route asks its gate. */
  admission?: CountedAdmission;
}

/**
 * The sub-requests the MCP server sends to the routes its tools call, marked by object
 * identity: a mark no client can forge, since it is never on the wire. It carries the route's
 * admission, decided by the gate call of the /mcp request, so the route's guard asks no gate
 * again; a route also accepts an MCP host's OAuth token (audience `/mcp`, RFC 8707) only on
 * these: the host was granted the tools, and each tool is its route.
 */
const toolRequests = new WeakMap<Request, McpToolAdmission>();

export const markMcpToolRequest = (request: Request, admitted: McpToolAdmission) => void toolRequests.set(request, admitted);

/**
 * The request's mark, when a tool's: read first thing (request-context.ts keeps it in the
 * request's context as `mcpToolRequest`), before any middleware replaces the request object.
 */
export const mcpToolMarkOf = (request: Request): McpToolAdmission | undefined => toolRequests.get(request);

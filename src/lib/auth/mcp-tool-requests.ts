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
/** The mark, moved onto the request's Hono context: a middleware may replace the request object. */
const toolContexts = new WeakMap<object, McpToolAdmission>();

export const markMcpToolRequest = (request: Request, admitted: McpToolAdmission) => void toolRequests.set(request, admitted);

/** Moves a tool request's mark onto its context. Called first thing, before any middleware replaces the request. */
export function keepMcpToolMark(context: object, request: Request): void {
  const admitted = toolRequests.get(request);
  if (admitted) toolContexts.set(context, admitted);
}

/** The tool request's mark, by its context; undefined for any other request. */
export const mcpToolAdmission = (context: object): McpToolAdmission | undefined => toolContexts.get(context);

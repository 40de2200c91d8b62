/**
 * The sub-requests the MCP server sends to the routes its tools call, marked by object
 * identity: a mark no client can forge, since it is never on the wire. A route accepts an MCP
 * host's OAuth token (audience `/mcp`, RFC 8707) only on these: the host was granted the tools,
 * and each tool is its route.
 */
const toolRequests = new WeakSet<Request>();

export const markMcpToolRequest = (request: Request) => void toolRequests.add(request);

export const isMcpToolRequest = (request: Request) => toolRequests.has(request);

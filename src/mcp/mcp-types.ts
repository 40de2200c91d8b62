/**
 * The few MCP wire types our endpoint produces, in the spec's own names (modelcontextprotocol.io,
 * schema of 2025-11-25 and 2026-07-28). Defined here rather than imported: the server side of
 * /mcp is ours (docs/decisions/sdk-and-mcp.md), and these shapes are all it needs.
 */

/** Hints a host shows about a tool (ToolAnnotations). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface TextContent {
  type: "text";
  text: string;
}

/**
 * A tool call's result (CallToolResult). `structuredJson`, when set, is the structured content
 * as JSON text already (a route's answer as the route wrote it): it is sent as it is, never
 * parsed and written again.
 */
export interface CallToolResult {
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  structuredJson?: string;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A JSON-RPC request id: a string or an integer (the SDK's RequestIdSchema). */
export type RequestId = string | number;

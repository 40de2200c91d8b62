import { z } from "@hono/zod-openapi";
import { clientInfoSchema, isClientInfo } from "./client-info";
import { isRecord } from "./jsonrpc";

/**
 * The params of the requests we serve, checked as the SDK's wire schemas check them. A
 * well-formed request is recognised by hand, at no cost; only a malformed one is run through the
 * schema, for the SDK's exact wording of what is wrong (zod's issues, as JSON).
 */

const related = z.object({ taskId: z.string() });
const meta = z.looseObject({ progressToken: z.union([z.string(), z.int()]).optional(), "io.modelcontextprotocol/related-task": related.optional() });

const callTool = z.object({
  method: z.literal("tools/call"),
  params: z.object({
    _meta: meta.optional(),
    task: z.object({ ttl: z.number().optional() }).optional(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
});

const initialize = z.object({
  method: z.literal("initialize"),
  params: z.object({
    _meta: meta.optional(),
    protocolVersion: z.string(),
    capabilities: z.object({}),
    clientInfo: clientInfoSchema,
  }),
});

/** A tools/call's tool name and arguments, or the SDK's description of what is wrong with its params. */
export function callToolParams(params: unknown): { name: string; args: Record<string, unknown> } | { problem: string } {
  if (isRecord(params) && typeof params.name === "string" && (params.arguments === undefined || isRecord(params.arguments)) && (params.task === undefined || isRecord(params.task))) {
    const task = params.task as Record<string, unknown> | undefined;
    if (task?.ttl === undefined || typeof task.ttl === "number") return { name: params.name, args: (params.arguments ?? {}) as Record<string, unknown> };
  }
  const parsed = callTool.safeParse({ method: "tools/call", params });
  if (parsed.success) return { name: parsed.data.params.name, args: parsed.data.params.arguments ?? {} };
  return { problem: parsed.error.message };
}

/** The protocol version an initialize asks for, or the SDK's description of what is wrong with its params. */
export function initializeParams(params: unknown): { protocolVersion: string } | { problem: string } {
  if (isRecord(params) && typeof params.protocolVersion === "string" && isRecord(params.capabilities) && isClientInfo(params.clientInfo)) {
    return { protocolVersion: params.protocolVersion };
  }
  const parsed = initialize.safeParse({ method: "initialize", params });
  if (parsed.success) return { protocolVersion: parsed.data.params.protocolVersion };
  return { problem: parsed.error.message };
}

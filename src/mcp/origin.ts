import type { Env } from "@/env";

/**
 * The one origin whose browser pages may call /mcp: the Worker's public one (PUBLIC_BASE_URL),
 * or none. Not the request's own Host, which a DNS-rebinding page controls along with its
 * Origin (the MCP spec's reason for the check). The whole origin, scheme, host and port: a page
 * served over http, or on another port of the same host, is another site.
 */
export function browserOrigin(env: Env): string | undefined {
  if (!env.PUBLIC_BASE_URL) return undefined;
  try {
    const { origin } = new URL(env.PUBLIC_BASE_URL);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The MCP SDK's refusal (403, a JSON-RPC error) of a browser page from another origin, or
 * nothing. The SDK's own check compares hostnames only, so it cannot tell a page of
 * `http://host:8080` from one of `https://host`. Agents send no Origin and always pass; a
 * browser sends the origin serialized as PUBLIC_BASE_URL's is, so the two compare as text.
 */
export function originRefusal(origin: string | undefined, allowed: string | undefined): Response | undefined {
  if (origin === undefined || origin === "" || origin === allowed) return undefined;
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message: `Invalid Origin: ${origin}` }, id: null }, { status: 403 });
}

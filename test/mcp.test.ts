import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { setupAgency } from "./helpers/factories";
import { BASE } from "./helpers/http";

async function connect(token: string) {
  const client = new Client({ name: "partner-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

describe("MCP server", () => {
  it("smoke", async () => {
    const { token } = await setupAgency();
    const client = await connect(token);
    const { tools } = await client.listTools();
    console.log(tools.map((t) => t.name));
    const r = await client.callTool({ name: "search_contacts", arguments: { limit: 5 } });
    console.log(JSON.stringify(r).slice(0, 300));
    const bad = await client.callTool({ name: "upsert_contacts", arguments: { contacts: [] } });
    console.log(JSON.stringify(bad).slice(0, 400));
    expect(tools.length).toBe(14);
  });
});

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "@/env";
import { messages } from "@/lib/errors";
import { toolListsBuilt } from "@/mcp/tool-catalog";
import { createAgency, createKey } from "../helpers/factories";
import { api, BASE } from "../helpers/http";
import { fetchWithEnv } from "../helpers/voice-factories";

/** The gate methods a request can call; every call of them is recorded, in order. */
const GATE_METHODS = new Set(["admit", "admitGrant", "consume", "admitOperator"]);

/** The test env with its AccessGate binding wrapped: each gate call a request makes is recorded. */
function countingEnv() {
  const calls: string[] = [];
  const gates = env.ACCESS_GATE;
  const wrapStub = (stub: DurableObjectStub) =>
    new Proxy(stub, {
      get(target, name) {
        if (typeof name === "string" && GATE_METHODS.has(name)) {
          // An RPC method is called on its stub as is: its stand-in has no Function.prototype.apply.
          return (...args: unknown[]) => {
            calls.push(name);
            return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
          };
        }
        const value = Reflect.get(target, name) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const binding = new Proxy(gates, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name === "get") return (id: DurableObjectId) => wrapStub(target.get(id));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { env: { ...(env as unknown as Env), ACCESS_GATE: binding } as Env, calls };
}

const MODERN = { "MCP-Protocol-Version": "2025-06-18" };

/** A bare JSON-RPC request to /mcp, as a stateless client sends it. */
function mcpRequest(token: string, method: string, params: Record<string, unknown> = {}) {
  return new Request(`${BASE}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...MODERN },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** The JSON-RPC answer of a response (JSON in both eras). */
const answerOf = (res: Response): Promise<any> => res.json();

const callTool = (token: string, name: string, args: Record<string, unknown> = {}) => mcpRequest(token, "tools/call", { name, arguments: args });

describe("MCP and the gate", () => {
  it("asks the key's gate once per MCP request: a tool call's route is decided in the same call, reads and writes alike", async () => {
    const agencyUuid = await createAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["contacts", "webhooks"] });
    const { env: counting, calls } = countingEnv();
    const send = async (request: Request) => {
      calls.length = 0;
      const res = await fetchWithEnv(counting, request);
      return { res, answer: await answerOf(res), calls: [...calls] };
    };

    const listed = await send(mcpRequest(token, "tools/list"));
    expect(listed.answer.result.tools.map((t: { name: string }) => t.name)).toContain("search_contacts");
    expect(listed.calls).toEqual(["admit"]);

    const written = await send(callTool(token, "upsert_contacts", { contacts: [{ first_name: "Gate", last_name: "Once", external_id: "gate-1" }] }));
    expect(written.answer.result.isError, JSON.stringify(written.answer)).toBeUndefined();
    expect(written.answer.result.structuredContent.results[0].status).toBe("created");
    expect(written.calls).toEqual(["admit"]);

    const read = await send(callTool(token, "search_contacts", { q: "once" }));
    expect(read.answer.result.structuredContent.contacts.map((c: { last_name: string }) => c.last_name)).toEqual(["Once"]);
    expect(read.calls).toEqual(["admit"]);
    // The write's event was recorded with it, as through its route.
    const events = await send(callTool(token, "list_events", { type: "contact.created" }));
    expect(events.answer.result.structuredContent.events.map((e: any) => e.data.object.external_id)).toEqual(["gate-1"]);
    expect(events.calls).toEqual(["admit"]);

    // The same as a partner's own request of the route.
    calls.length = 0;
    await fetchWithEnv(counting, new Request(`${BASE}/api/v2/contacts?limit=1`, { headers: { Authorization: `Bearer ${token}` } }));
    expect(calls).toEqual(["admit"]);
  });

  it("counts a tool call once against the endpoint and once against its route; a refusal of either spends nothing of the route", async () => {
    const agencyUuid = await createAgency();
    // A tenth of every limit: GET /contacts 6 a minute, the endpoint 12.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 0.1 });
    const routeRemaining = async () => Number((await api("GET", "/contacts", { token })).headers.get("RateLimit-Remaining"));

    const first = await fetchWithEnv(env as unknown as Env, callTool(token, "search_contacts"));
    expect(first.headers.get("RateLimit-Remaining")).toBe("11");
    expect((await answerOf(first)).result.isError).toBeUndefined();
    // The tool call spent one of the route's 6; this REST request another.
    expect(await routeRemaining()).toBe(4);

    // Arguments refused before the route never reach it: the endpoint counts the request, the route nothing.
    const refused = await fetchWithEnv(env as unknown as Env, callTool(token, "search_contacts", { nmae: "x" }));
    expect(refused.headers.get("RateLimit-Remaining")).toBe("10");
    expect((await answerOf(refused)).result.content[0].text).toBe("Unknown argument: nmae (code validation_error)");
    expect(await routeRemaining()).toBe(3);

    // The endpoint used up (12): a tool call is refused with the endpoint's 429, and spends nothing of its route.
    for (let i = 0; i < 10; i++) await fetchWithEnv(env as unknown as Env, mcpRequest(token, "tools/list"));
    const limited = await fetchWithEnv(env as unknown as Env, callTool(token, "search_contacts"));
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: "rate_limited", error: messages.rateLimited });
    expect(await routeRemaining()).toBe(2);
  });

  it("admits exactly L of N concurrent tool calls against a route limit L, counting each on the endpoint once", async () => {
    const agencyUuid = await createAgency();
    // GET /contacts: 6 a minute at a tenth; the endpoint 12, enough for all 10.
    const { token } = await createKey(agencyUuid, { scopes: ["contacts"], rate_limit_multiplier: 0.1 });
    const responses = await Promise.all(Array.from({ length: 10 }, () => fetchWithEnv(env as unknown as Env, callTool(token, "search_contacts"))));
    expect(responses.map((res) => res.status)).toEqual(Array(10).fill(200));
    // Each request counted once by the endpoint: ten distinct standings, 11 down to 2.
    expect(responses.map((res) => Number(res.headers.get("RateLimit-Remaining"))).sort((a, b) => b - a)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const answers = await Promise.all(responses.map(answerOf));
    expect(answers.filter((a) => !a.result.isError)).toHaveLength(6);
    const limited = answers.filter((a) => a.result.isError);
    expect(limited).toHaveLength(4);
    for (const { result } of limited) {
      expect(result.structuredContent).toMatchObject({ code: "rate_limited", error: messages.rateLimited, status: 429, retry_after_seconds: expect.any(Number) });
    }
    // The route's limit is spent exactly: the key's own REST request is refused too.
    expect((await api("GET", "/contacts", { token })).status).toBe(429);
  });

  it("writes a set of tools' tools/list answer once per isolate and protocol era, not per request", async () => {
    const agencyUuid = await createAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["voice-ai", "messages"] });
    const send = async (request: Request) => answerOf(await fetchWithEnv(env as unknown as Env, request));
    expect((await send(mcpRequest(token, "tools/list"))).result.tools.length).toBeGreaterThan(0);
    const built = toolListsBuilt();
    for (let i = 0; i < 5; i++) {
      expect((await send(callTool(token, "get_wallet"))).result.isError).toBeUndefined();
      expect((await send(mcpRequest(token, "tools/list"))).result.tools.map((t: { name: string }) => t.name)).toContain("send_message");
    }
    expect(toolListsBuilt()).toBe(built);

    // A 2026-07-28 client (server/discover, then requests): its era's answer is written once too.
    const client = new Client({ name: "modern-agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
        fetch: (url, init) => fetchWithEnv(env as unknown as Env, new Request(url, init)),
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.callTool({ name: "get_wallet", arguments: {} })).isError).toBeFalsy();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("send_message");
    const modern = toolListsBuilt();
    for (let i = 0; i < 5; i++) {
      expect((await client.callTool({ name: "get_wallet", arguments: {} })).isError).toBeFalsy();
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("send_message");
    }
    expect(toolListsBuilt()).toBe(modern);
    await client.close();
  });
});

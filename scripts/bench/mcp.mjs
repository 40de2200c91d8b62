// The MCP server's cost over the REST route it stands for (issues 22 and 30), measured side by
// side (A B C, A B C, ...): `GET /contacts?limit=20`, the `search_contacts` tool asking the
// same page through POST /mcp, and `tools/list`; with BENCH_BASELINE, the same three on the
// older checkout in the same rounds. The budgets: a tool call >= 0.9x its route, and tools/list
// >= 0.9x that same plain authenticated GET, each the median of the rounds' own ratios.
// Like every budget's comparison, at least 6 rounds (even) with a 4 s warm-up (measure.mjs).
// `node scripts/bench/mcp.mjs` runs this scenario alone, on Workers of its own.
import { BUDGET_WARMUP_SECONDS, budgetRounds, median, sideBySide } from "./measure.mjs";
import { runIfMain, scenarioTargets, seedOneAgency, withTargets } from "./servers.mjs";

const PAGE = 20;
/** Both MCP requests must serve at least this share of the route's requests per second. */
export const MCP_BUDGET = 0.9;

const rpc = (method, params) => () => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

/** A JSON-RPC answer that is a result (and, for a tool, not a tool error). */
function rpcResult(check) {
  return (body) => {
    if (!body?.result) return `expected a JSON-RPC result: ${JSON.stringify(body).slice(0, 300)}`;
    if (body.result.isError) return `the tool refused: ${JSON.stringify(body.result.content).slice(0, 300)}`;
    return check(body.result);
  };
}

/** JSON, or the JSON of a server-sent event's data (how a baseline from before issue 30 answers the 2025 protocol). */
function parseAnswer(text) {
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  try {
    return JSON.parse(data ? data.slice("data: ".length) : text);
  } catch {
    return null;
  }
}

/** The three requests against one Worker, keyed `<prefix>rest`, `<prefix>tool`, `<prefix>list`. */
function sidesOf(base, agency, prefix, label) {
  const auth = { Authorization: `Bearer ${agency.token}` };
  // The streamable HTTP transport's headers: a JSON body, and both answer types accepted.
  const mcpHeaders = { ...auth, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  return [
    {
      key: `${prefix}rest`,
      base,
      scenario: { name: `GET /contacts?limit=${PAGE}${label}`, method: "GET", path: `/api/v2/contacts?limit=${PAGE}`, headers: auth },
    },
    {
      key: `${prefix}tool`,
      base,
      scenario: {
        name: `MCP tools/call search_contacts (limit ${PAGE})${label}`,
        method: "POST",
        path: "/mcp",
        headers: mcpHeaders,
        body: rpc("tools/call", { name: "search_contacts", arguments: { limit: PAGE } }),
        check: rpcResult((result) =>
          result.structuredContent?.contacts?.length === PAGE ? undefined : `expected ${PAGE} contacts: ${JSON.stringify(result).slice(0, 200)}`,
        ),
      },
    },
    {
      key: `${prefix}list`,
      base,
      scenario: {
        name: `MCP tools/list${label}`,
        method: "POST",
        path: "/mcp",
        headers: mcpHeaders,
        body: rpc("tools/list", {}),
        check: rpcResult((result) => (result.tools?.length === 14 ? undefined : `expected 14 tools, got ${result.tools?.length}`)),
      },
    },
  ];
}

/** Each MCP request's rate over its route's, per round, and their median. */
function ratios(each, prefix) {
  const of = (key) => +median(each.map((round) => round[`${prefix}${key}`].rps / Math.max(round[`${prefix}rest`].rps, 1))).toFixed(2);
  return { tool: of("tool"), list: of("list") };
}

/**
 * `baseline`: `{ base, agency }` of an older checkout's Worker, measured in the same rounds.
 * Returns the current Worker's sides (rest, tool, list) and ratios, and the baseline's under `baseline`.
 */
export async function measureMcp(base, agency, { rounds, warmup, seconds, connections, log }, baseline = null) {
  const sides = [...sidesOf(base, agency, "", ""), ...(baseline ? sidesOf(baseline.base, baseline.agency, "base_", " [baseline]") : [])];
  // Each answer checked once before the load (load() itself only counts statuses).
  for (const { base: at, scenario } of sides) {
    const res = await fetch(`${at}${scenario.path}`, { method: scenario.method, headers: scenario.headers, body: scenario.body?.() });
    const body = parseAnswer(await res.text());
    if (!res.ok) throw new Error(`${scenario.name}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const problem = scenario.check?.(body);
    if (problem) throw new Error(`${scenario.name}: ${problem}`);
  }
  log(`MCP: search_contacts and tools/list against GET /contacts${baseline ? ", current and baseline" : ""}, ${rounds} rounds side by side`);
  const { each, bySide } = await sideBySide(sides, { rounds, warmup, seconds, connections, log });
  const pick = (prefix) => ({ rest: bySide[`${prefix}rest`], tool: bySide[`${prefix}tool`], list: bySide[`${prefix}list`], ratios: ratios(each, prefix) });
  return { ...pick(""), baseline: baseline ? pick("base_") : null };
}

/** The scenario's budget lines: each MCP request against the route it is compared with. */
export function mcpBudgets(mcp) {
  if (!mcp?.ratios) return [];
  const line = (what, ratio, side) => ({
    budget: `MCP ${what} >= ${MCP_BUDGET}x GET /contacts?limit=${PAGE}`,
    value: `${ratio} (${side.rps} vs ${mcp.rest.rps} req/s, median of per-round ratios)`,
    ok: ratio >= MCP_BUDGET,
  });
  return [line("tools/call search_contacts", mcp.ratios.tool, mcp.tool), line("tools/list", mcp.ratios.list, mcp.list)];
}

/** The scenario's lines of the report. */
export function mcpLines(mcp, connections) {
  const pad = (s, n) => String(s).padEnd(n);
  const padL = (s, n) => String(s).padStart(n);
  const header = `${pad("request", 58)}${padL("req/s", 8)}${padL("p50 ms", 8)}${padL("p99 ms", 8)}${padL("/ REST", 8)}`;
  const row = (s, ratio) => `${pad(s.name, 58)}${padL(s.rps, 8)}${padL(s.p50, 8)}${padL(s.p99, 8)}${padL(ratio, 8)}`;
  const block = (m) => [row(m.rest, 1), row(m.tool, m.ratios.tool), row(m.list, m.ratios.list)];
  return [
    `the MCP server against the route it calls, ${connections} connections, medians of ${mcp.rest.rounds.length} rounds side by side (ratios: medians of per-round ratios):`,
    header,
    "-".repeat(header.length),
    ...block(mcp),
    ...(mcp.baseline ? block(mcp.baseline) : []),
    "",
  ];
}

/** `node scripts/bench/mcp.mjs`: this scenario alone, on Workers of its own (and BENCH_BASELINE's). */
async function standalone() {
  const { current, baseline, targets } = scenarioTargets("mcp", { portOffset: 20, vars: { LOG_LEVEL: "silent" } });
  const log = (line) => console.log(`\x1b[35m[bench mcp]\x1b[0m ${line}`);
  await withTargets(targets, async () => {
    const { agency } = await seedOneAgency(current);
    const baseAgency = baseline ? (await seedOneAgency(baseline)).agency : null;
    for (const t of targets) await t.start();
    await Promise.all(targets.map((t) => t.waitReady()));
    const connections = Number(process.env.BENCH_CONNECTIONS || 10);
    const result = await measureMcp(
      current.base,
      agency,
      {
        rounds: budgetRounds(Number(process.env.BENCH_ROUNDS || 6)),
        warmup: BUDGET_WARMUP_SECONDS,
        seconds: Number(process.env.BENCH_AB_SECONDS || 4),
        connections,
        log,
      },
      baseline ? { base: baseline.base, agency: baseAgency } : null,
    );
    for (const line of mcpLines(result, connections)) console.log(line);
    for (const b of mcpBudgets(result)) console.log(`${b.ok ? "ok  " : "MISS"} ${b.budget}: ${b.value}`);
    if (result.baseline) for (const b of mcpBudgets(result.baseline)) console.log(`     [baseline] ${b.budget}: ${b.value}`);
  });
}

runIfMain(import.meta.url, standalone);

// Load runs (autocannon) and the instrumented metrics request of `npm run bench`. Nothing
// here reads a failure as a number: a failed request, a non-2xx answer under load or a
// missing metrics header throws.
import autocannon from "autocannon";

/** One autocannon run: for `run.seconds`, or until `run.amount` requests have completed. */
function load(base, scenario, run, connections) {
  return new Promise((resolve, reject) => {
    const request = { method: scenario.method, path: scenario.path, headers: scenario.headers };
    if (scenario.body) request.setupRequest = (req) => ({ ...req, body: scenario.body() });
    const length = run.amount ? { amount: run.amount } : { duration: run.seconds };
    autocannon({ url: base, connections, ...length, requests: [request], timeout: 30 }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const statusesOf = (result) => Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));

/** Throws when any request of the run failed or answered other than 2xx: a fast stream of errors is not throughput. */
function assertAllOk(result, label) {
  if (result.errors + result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${label}: ${result.non2xx} non-2xx ${JSON.stringify(statusesOf(result))}, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `of ${result.requests.total} requests`,
    );
  }
}

/**
 * Waits out the requests a run left in flight: autocannon stops waiting for them, the server
 * does not, so the next run would start behind a queue of them. One more request, answered
 * after them, marks the queue empty.
 */
async function drain(base, scenario, label) {
  const res = await fetch(`${base}${scenario.path}`, { method: scenario.method, headers: scenario.headers, body: scenario.body?.() });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${label} (draining): HTTP ${res.status}`);
}

/**
 * Below this many completed requests a fixed window says little: its percentiles leave out the
 * requests still in flight when it ended, which for a slow scenario are most of them.
 */
export const FEW_REQUESTS = 20;

/**
 * The warm-up of the comparisons a budget judges by a ratio (the hand-written Worker, the MCP
 * server): 4 s, where the other side-by-side runs take 1 s (`BENCH_BUDGET_WARMUP_SECONDS`). A
 * server idle for the few seconds the other sides of a round ran answers its first seconds of
 * load slower, the project's Worker more than the small reference: with 1 s the measured window
 * still held that start, and each side's first run after idling was its slow one, so the rounds'
 * ratios of the same code swung from 0.7 to 1.2 with the order; with 4 s that pattern was gone
 * (docs/decisions/get-contacts-hot-path.md, A third look).
 */
export const BUDGET_WARMUP_SECONDS = Number(process.env.BENCH_BUDGET_WARMUP_SECONDS || 4);

/**
 * The rounds of a budget's comparison: at least 6, and even, so each order is measured as often
 * as the other; a median of three ratios moves by a tenth with one noisy round on a shared machine.
 */
export const budgetRounds = (rounds) => Math.max(6, rounds + (rounds % 2));

/**
 * Throughput and latency of one scenario against one server: `warmup` seconds unrecorded, then
 * `seconds` measured. A scenario too slow to complete FEW_REQUESTS in that window (judged by
 * the warm-up's pace, or by the window itself) is measured instead as FEW_REQUESTS requests,
 * each to completion (`mode: "requests"`), so its rate and percentiles cover every request.
 * Throws when any request failed or answered other than 2xx. With `cpu` (a function giving the
 * server's CPU seconds so far, Target.cpuSeconds) it also reports the server's CPU
 * milliseconds per request of the measured run (`cpuMsPerRequest`).
 */
export async function measure(base, scenario, { warmup, seconds, connections, label = scenario.name, cpu }) {
  // The warm-up's pace tells a slow scenario in advance, saving a window that would say little.
  let expected = Infinity;
  if (warmup > 0) {
    const warm = await load(base, scenario, { seconds: warmup }, connections);
    assertAllOk(warm, `${label} (warm-up)`);
    expected = (warm.requests.total * seconds) / warmup;
    await drain(base, scenario, label);
  }
  let cpuBefore = cpu?.();
  let result = expected >= FEW_REQUESTS ? await load(base, scenario, { seconds }, connections) : null;
  if (result) assertAllOk(result, label);
  let mode = "window";
  if (!result || result.requests.total < FEW_REQUESTS) {
    if (result) await drain(base, scenario, label);
    cpuBefore = cpu?.();
    result = await load(base, scenario, { amount: FEW_REQUESTS }, connections);
    assertAllOk(result, `${label} (${FEW_REQUESTS} requests)`);
    if (result.requests.total < FEW_REQUESTS) throw new Error(`${label}: ${result.requests.total} of ${FEW_REQUESTS} requests completed`);
    mode = "requests";
  }
  // Completed requests over the run's actual length: a slow scenario's few requests a second
  // keep a decimal rather than rounding to 0.
  const rate = result.requests.total / (result.duration || seconds);
  const cpuAfter = cpu?.();
  return {
    ...(cpuBefore != null && cpuAfter != null ? { cpuMsPerRequest: +(((cpuAfter - cpuBefore) * 1000) / result.requests.total).toFixed(2) } : {}),
    rps: rate >= 10 ? Math.round(rate) : +rate.toFixed(1),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    mode,
    statuses: statusesOf(result),
  };
}

/**
 * One instrumented request: D1 rows read, round trips and statements from the Worker's bench
 * headers (BENCH_METRICS), and `scenario.check(body)` when the scenario has one (it returns an
 * error message, or nothing when the answer is right).
 */
export async function metrics(base, scenario, label = scenario.name) {
  const init = { method: scenario.method, headers: { ...scenario.headers, "X-Bench-Rows-Read": "1" } };
  if (scenario.body) init.body = scenario.body();
  const res = await fetch(`${base}${scenario.path}`, init);
  const text = await res.text();
  const rows = res.headers.get("X-Bench-Rows-Read");
  const trips = res.headers.get("X-Bench-D1-Round-Trips");
  const statements = res.headers.get("X-Bench-D1-Statements");
  // A failed request or missing metrics would read as 0 and pass every budget: refuse it.
  if (!res.ok) throw new Error(`${label}: HTTP ${res.status} ${text.slice(0, 300)}`);
  if (rows === null || trips === null || statements === null) throw new Error(`${label}: no benchmark metrics (is BENCH_METRICS on?)`);
  const numbers = { rowsRead: Number(rows), d1RoundTrips: Number(trips), d1Statements: Number(statements) };
  for (const [name, value] of Object.entries(numbers)) {
    if (!Number.isFinite(value)) throw new Error(`${label}: metric ${name} is not a number (${value})`);
  }
  if (scenario.check) {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${label}: the answer is not JSON: ${text.slice(0, 300)}`);
    }
    const problem = scenario.check(body);
    if (problem) throw new Error(`${label}: ${problem}`);
  }
  return { status: res.status, ...numbers };
}

export function median(values) {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median of each round's ratio of side `a` to side `b` (requests per second), and the
 * ratios: a round's runs share the machine's state of the moment, which the ratio of the two
 * sides' medians (taken from different rounds) would not.
 */
export function roundRatios(rounds, a, b) {
  const ratios = rounds.map((round) => +(round[a].rps / Math.max(round[b].rps, 1)).toFixed(3));
  return { ratios, ratio: +median(ratios).toFixed(2) };
}

/** An `onRound` for `alternate` that logs each side's rate (and p50) of the round. */
const logRounds = (sides, log) => (r, round) =>
  log(`  round ${r}: ${sides.map((s) => `${s.key} ${round[s.key].rps} req/s p50 ${round[s.key].p50} ms`).join(", ")}`);

/**
 * `alternate` with each round logged: the rounds, and by side its name, medians and rounds.
 * `sides` is `[{ key, base, scenario }]`.
 */
export async function sideBySide(sides, { rounds, warmup, seconds, connections, log }) {
  const { rounds: each, medians } = await alternate(sides, { rounds, warmup, seconds, connections, onRound: logRounds(sides, log) });
  const bySide = Object.fromEntries(sides.map((s) => [s.key, { name: s.scenario.name, ...medians[s.key], rounds: each.map((r) => r[s.key]) }]));
  return { each, bySide };
}

/**
 * Side by side: each round measures every side in turn, each with its own warm-up, and every
 * other round in the reverse order (A B, B A, A B, ...), so drift on the machine (heat, other
 * work, a growing table) falls on both alike and neither side always runs second, on a server
 * the other side's load has just left warm or busy. `sides` is `[{ key, base, scenario, cpu? }]`
 * (`cpu`: see measure);
 * returns each round's numbers (keyed by side, whatever the order) and each side's medians.
 */
export async function alternate(sides, { rounds, warmup, seconds, connections, onRound }) {
  const all = [];
  for (let r = 1; r <= rounds; r++) {
    const round = {};
    for (const side of r % 2 === 1 ? sides : [...sides].reverse()) {
      round[side.key] = await measure(side.base, side.scenario, { warmup, seconds, connections, label: `${side.scenario.name} [${side.key}]`, cpu: side.cpu });
    }
    all.push(round);
    onRound?.(r, round);
  }
  const medians = {};
  for (const { key } of sides) {
    medians[key] = {
      rps: +median(all.map((round) => round[key].rps)).toFixed(1),
      p50: median(all.map((round) => round[key].p50)),
      p99: median(all.map((round) => round[key].p99)),
      requests: all.reduce((n, round) => n + round[key].requests, 0),
      mode: all.some((round) => round[key].mode === "requests") ? "requests" : "window",
      ...(all.every((round) => round[key].cpuMsPerRequest !== undefined) ? { cpuMsPerRequest: median(all.map((round) => round[key].cpuMsPerRequest)) } : {}),
    };
  }
  return { rounds: all, medians };
}

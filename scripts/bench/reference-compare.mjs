// The project's `GET /contacts?limit=20` against the hand-written reference Worker
// (scripts/bench/reference/: no framework, one RPC to a per-key Durable Object, one D1 batch for
// the page and the total), each on its own `wrangler dev` with its own local D1 of 1,000
// contacts: step 4 of `npm run bench`. Measured side by side, the order reversed every other
// round (project reference, reference project, ...), and judged by the median of the rounds'
// own ratios: a round's two runs share the machine's state of the moment.
//
// `node scripts/bench/reference-compare.mjs` runs this comparison alone, on servers of its own
// (ports from BENCH_PORT + 20; `BENCH_ROUNDS`, `BENCH_AB_SECONDS`,
// `BENCH_CONNECTIONS` as in the full run; at least 6 rounds and an even number, and a warm-up of
// `BENCH_BUDGET_WARMUP_SECONDS`, as every budget's comparison: measure.mjs). With `BENCH_BASELINE=<another checkout>` that
// checkout is measured in the same rounds too (project, reference, baseline; then backwards),
// each against the same reference, so one run gives the ratio before and after.
import { join, resolve } from "node:path";
import { loadavg } from "node:os";
import { BUDGET_WARMUP_SECONDS, alternate, budgetRounds, median, metrics, roundRatios } from "./measure.mjs";
import { runIfMain } from "./servers.mjs";

export const REFERENCE_SIZE = 1_000;
const PAGE = 20;
export const REFERENCE_BUDGET = 0.95;


/** A page of PAGE contacts out of `total`. */
const pageOf = (total) => (body) => {
  if (!Array.isArray(body?.contacts)) return `no contacts in the answer: ${JSON.stringify(body).slice(0, 200)}`;
  if (body.contacts.length !== PAGE) return `expected a page of ${PAGE} contacts, got ${body.contacts.length}`;
  if (body.pagination?.total !== total) return `expected pagination.total ${total}, got ${body.pagination?.total}`;
  return undefined;
};

/** The project's side: `GET /api/v2/contacts?limit=20` of an agency of REFERENCE_SIZE contacts. */
export const projectScenario = (agency, name = `GET /contacts?limit=${PAGE}`) => ({
  name,
  method: "GET",
  path: `/api/v2/contacts?limit=${PAGE}`,
  headers: { Authorization: `Bearer ${agency.token}` },
  check: pageOf(REFERENCE_SIZE),
});

/** The reference's side: the same page at its one path. */
export const referenceScenario = (agency) => ({
  name: `GET /contacts?limit=${PAGE} (reference)`,
  method: "GET",
  path: `/contacts?limit=${PAGE}`,
  headers: { Authorization: `Bearer ${agency.token}` },
  check: pageOf(REFERENCE_SIZE),
});

/** Each JSON value's kind, key by key, so two answers can be compared for shape. */
function shapeOf(value) {
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : [];
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shapeOf(value[k])]));
  return value === null ? "null" : typeof value;
}

async function getJson(base, scenario) {
  const res = await fetch(`${base}${scenario.path}`, { headers: scenario.headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`${scenario.name} at ${base}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { body: JSON.parse(text), headers: res.headers };
}

/** Throws unless `theirs` answers the shape and rate-limit headers `mine` does: the two must do the same work. */
async function assertSameAnswer(mine, theirs) {
  const [a, b] = [await getJson(mine.base, mine.scenario), await getJson(theirs.base, theirs.scenario)];
  const [shapeA, shapeB] = [JSON.stringify(shapeOf(a.body)), JSON.stringify(shapeOf(b.body))];
  if (shapeA !== shapeB) throw new Error(`${theirs.key}'s answer is not shaped like ${mine.key}'s:\n ${mine.key} ${shapeA}\n ${theirs.key} ${shapeB}`);
  for (const header of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"]) {
    if (!a.headers.get(header) || !b.headers.get(header)) throw new Error(`${header} missing from ${mine.key}'s or ${theirs.key}'s answer`);
  }
}

/**
 * `project` and `reference` (and `baseline`, when given) are `{ base, scenario, cpu? }` (`cpu`:
 * the server's CPU seconds so far, Target.cpuSeconds). Returns each round's numbers, each side's
 * medians, every round's project / reference ratio and their median (`ratio`), with the
 * baseline's the same way (`baselineRatio`), the median of the rounds' ratios of CPU per request
 * (`cpuRatio`, `baselineCpuRatio`; null where CPU could not be read), and each side's rows read
 * and D1 round trips of one instrumented request.
 */
export async function compareWithReference({ project, reference, baseline = null, rounds, warmup, seconds, connections, log }) {
  const sides = [
    { key: "project", ...project },
    { key: "reference", ...reference },
    ...(baseline ? [{ key: "baseline", ...baseline }] : []),
  ];
  for (const side of sides.slice(1)) await assertSameAnswer(sides[0], side);
  const measured = {};
  for (const side of sides) measured[side.key] = await metrics(side.base, side.scenario, `${side.scenario.name} [${side.key}]`);
  const order = sides.map((s) => s.key);
  log(
    `${project.scenario.name}: ${order.join(", ")}, ${rounds} rounds of ${warmup} s warm-up + ${seconds} s, ` +
      `in the order ${order.join(" ")}, then ${[...order].reverse().join(" ")}, ...`,
  );
  const { rounds: each, medians } = await alternate(sides, {
    rounds,
    warmup,
    seconds,
    connections,
    onRound: (r, round) =>
      log(
        `  round ${r}: ${sides.map((s) => `${s.key} ${round[s.key].rps} req/s${round[s.key].cpuMsPerRequest ? ` ${round[s.key].cpuMsPerRequest} CPU ms` : ""}`).join(", ")}; project / reference ` +
          `${(round.project.rps / round.reference.rps).toFixed(2)}${baseline ? `, baseline / reference ${(round.baseline.rps / round.reference.rps).toFixed(2)}` : ""}`,
      ),
  });
  const { ratios, ratio } = roundRatios(each, "project", "reference");
  const before = baseline ? roundRatios(each, "baseline", "reference") : null;
  // The servers' CPU per request, where it could be read: what the load on the machine moves least.
  const cpu = (key) =>
    each.every((round) => round[key].cpuMsPerRequest && round.reference.cpuMsPerRequest)
      ? +median(each.map((round) => round[key].cpuMsPerRequest / round.reference.cpuMsPerRequest)).toFixed(2)
      : null;
  return {
    cpuRatio: cpu("project"),
    ...(baseline ? { baselineCpuRatio: cpu("baseline") } : {}),
    size: REFERENCE_SIZE,
    rounds: each,
    medians,
    ratios,
    ratio,
    ...(before ? { baselineRatios: before.ratios, baselineRatio: before.ratio } : {}),
    metrics: measured,
  };
}

/**
 * The baseline's side of a comparison measured with one, shaped as a comparison of its own (the
 * baseline as the project), so the before/after report can give its budget line; undefined
 * without a baseline.
 */
export const baselineSideOf = (ref) =>
  ref?.baselineRatios
    ? {
        ...ref,
        ratio: ref.baselineRatio,
        ratios: ref.baselineRatios,
        cpuRatio: ref.baselineCpuRatio ?? null,
        medians: { project: ref.medians.baseline, reference: ref.medians.reference },
      }
    : undefined;

/** The budget line of the comparison. */
export const referenceBudget = (ref) =>
  ref
    ? {
        budget: `GET /contacts vs reference >= ${REFERENCE_BUDGET}`,
        value:
          `${ref.ratio} (median of ${ref.rounds.length} rounds' ratios${ref.ratios ? ` ${ref.ratios.map((r) => r.toFixed(2)).join(" ")}` : ""}; ` +
          `${ref.medians.project.rps} vs ${ref.medians.reference.rps} req/s${ref.cpuRatio ? `; CPU per request ${ref.cpuRatio}x the reference's` : ""})`,
        ok: ref.ratio >= REFERENCE_BUDGET,
      }
    : { budget: `GET /contacts vs reference >= ${REFERENCE_BUDGET}`, value: "not measured", ok: null };

/** The comparison's lines of the report. */
export function referenceLines(ref, { warmupSeconds, seconds }) {
  const pad = (v, n) => String(v).padEnd(n);
  const padL = (v, n) => String(v).padStart(n);
  const sides = ["project", "reference", ...(ref.baselineRatios ? ["baseline"] : [])];
  // A results.json of before this comparison reported ratios has none: computed from its rounds.
  const ratios = ref.ratios ?? ref.rounds.map((round) => round.project.rps / round.reference.rps);
  const ms = (s) => (s.cpuMsPerRequest === undefined ? "-" : s.cpuMsPerRequest.toFixed(2));
  const header =
    `${pad("round", 8)}` + sides.map((s) => `${padL(`${s} req/s`, s.length + 8)}${padL("p50", 6)}${padL("p99", 6)}${padL("CPU ms", 8)}`).join("") +
    `${padL("project/ref", 13)}${ref.baselineRatios ? padL("baseline/ref", 14) : ""}`;
  const line = (label, round, ratio, baseRatio) =>
    `${pad(label, 8)}` +
    sides.map((s) => `${padL(round[s].rps, s.length + 8)}${padL(round[s].p50, 6)}${padL(round[s].p99, 6)}${padL(ms(round[s]), 8)}`).join("") +
    `${padL(ratio, 13)}${ref.baselineRatios ? padL(baseRatio, 14) : ""}`;
  const cpuLine = (key, value) => (value == null ? "" : `; ${key} CPU per request / the reference's: ${value} (median of the rounds' ratios)`);
  return [
    `\nGET /contacts?limit=20 at ${ref.size.toLocaleString("en-US")} contacts: the project vs the hand-written Worker (scripts/bench/reference), ` +
      `${warmupSeconds} s warm-up + ${seconds} s each, the order reversed every other round:`,
    header,
    "-".repeat(header.length),
    ...ref.rounds.map((round, i) => line(String(i + 1), round, ratios[i].toFixed(2), ref.baselineRatios?.[i].toFixed(2))),
    line("median", ref.medians, ref.ratio, ref.baselineRatio),
    `project / reference: ${ref.ratio} (the median of the rounds' ratios)` +
      (ref.baselineRatios ? `; baseline / reference: ${ref.baselineRatio}` : "") +
      cpuLine("project", ref.cpuRatio) +
      cpuLine("baseline", ref.baselineCpuRatio) +
      `; rows read ${sides.map((s) => ref.metrics[s].rowsRead).join(" vs ")}, D1 trips ${sides.map((s) => ref.metrics[s].d1RoundTrips).join(" vs ")}`,
  ];
}

/** `node scripts/bench/reference-compare.mjs`: this comparison alone, on servers of its own. */
async function standalone() {
  const { Target, baselineConfig, compatibilityDate, runnableConfig } = await import("./servers.mjs");
  const { seedBenchmark } = await import("./seed.mjs");
  const { ROOT, ensureDevVars, readDevVars } = await import("../lib/dev-vars.mjs");
  const { existsSync } = await import("node:fs");
  const port = Number(process.env.BENCH_PORT || 8799) + 20;
  const out = join(ROOT, ".bench", "reference-compare");
  const log = (line) => console.log(`\x1b[35m[bench reference]\x1b[0m ${line}`);
  const vars = { LOG_LEVEL: "silent", BENCH_METRICS: "on" };
  const projectConfig = join(ROOT, "wrangler.toml");
  const envFile = join(ROOT, ".dev.vars");
  const current = new Target({
    label: "current",
    port,
    config: runnableConfig(projectConfig, out, { dropBuild: true, suffix: "-refcmp" }),
    root: ROOT,
    state: join(out, "state"),
    envFile,
    vars,
  });
  const reference = new Target({
    label: "reference",
    port: port + 1,
    config: runnableConfig(join(ROOT, "scripts", "bench", "reference", "wrangler.toml"), join(out, "reference"), { suffix: "-refcmp" }),
    root: ROOT,
    state: join(out, "reference", "state"),
    envFile,
    ready: "/contacts",
    devArgs: ["--compatibility-date", compatibilityDate(projectConfig)],
  });
  const checkout = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
  // A checkout without .dev.vars of its own runs with this one's secrets (the same TOKEN_PEPPER).
  const baseEnvFile = checkout && existsSync(join(checkout, ".dev.vars")) ? join(checkout, ".dev.vars") : envFile;
  const baseline = checkout
    ? new Target({ label: "baseline", port: port + 2, config: baselineConfig(checkout, join(out, "baseline")), root: checkout, state: join(out, "baseline", "state"), envFile: baseEnvFile, vars })
    : null;
  const targets = [current, reference, baseline].filter(Boolean);
  process.on("exit", () => targets.forEach((t) => t.stop()));
  process.on("SIGINT", () => process.exit(130));
  const loadAtStart = loadavg().map((n) => +n.toFixed(2));
  try {
    // The Worker serves nothing without a TOKEN_PEPPER: the checkout's .dev.vars gets one if it has none.
    const pepper = ensureDevVars().vars.TOKEN_PEPPER;
    const [agency] = seedBenchmark(await current.migrate(), { pepper, sizes: [REFERENCE_SIZE] });
    const [refAgency] = seedBenchmark(await reference.migrate(), { pepper, sizes: [REFERENCE_SIZE] });
    const baseAgency = baseline ? seedBenchmark(await baseline.migrate(), { pepper: readDevVars(baseEnvFile).TOKEN_PEPPER, sizes: [REFERENCE_SIZE] })[0] : null;
    for (const t of targets) await t.start();
    await Promise.all(targets.map((t) => t.waitReady()));
    const timing = { warmup: BUDGET_WARMUP_SECONDS, seconds: Number(process.env.BENCH_AB_SECONDS || 4) };
    const result = await compareWithReference({
      project: { base: current.base, scenario: projectScenario(agency), cpu: () => current.cpuSeconds() },
      reference: { base: reference.base, scenario: referenceScenario(refAgency), cpu: () => reference.cpuSeconds() },
      baseline: baseline && { base: baseline.base, scenario: projectScenario(baseAgency, `GET /contacts?limit=${PAGE} (baseline)`), cpu: () => baseline.cpuSeconds() },
      rounds: budgetRounds(Number(process.env.BENCH_ROUNDS || 6)),
      connections: Number(process.env.BENCH_CONNECTIONS || 10),
      log,
      ...timing,
    });
    result.loadAverage = { start: loadAtStart, end: loadavg().map((n) => +n.toFixed(2)) };
    console.log(JSON.stringify(result));
    for (const line of referenceLines(result, { warmupSeconds: timing.warmup, seconds: timing.seconds })) console.log(line);
    const budget = referenceBudget(result);
    console.log(`${budget.ok ? "PASS" : "MISS"}  ${budget.budget}: ${budget.value}`);
    console.log(`load average 1/5/15 min ${result.loadAverage.start.join(" ")} at the start, ${result.loadAverage.end.join(" ")} at the end`);
  } catch (error) {
    for (const t of targets) console.error(`--- ${t.label} (wrangler dev) output ---\n${t.output.slice(-3000)}`);
    throw error;
  } finally {
    targets.forEach((t) => t.stop());
  }
}

runIfMain(import.meta.url, standalone);

// Another agency's `GET /contacts` while an agency of 20,000 contacts moves between shards
// (issue 29; docs/operations.md, Moving an agency), against the same requests without a move. A
// Worker of its own under `wrangler dev` with two shards: the moving agency and its neighbour are
// seeded on DB straight into SQLite, then the agency moves DB -> DB_EU -> DB ..., and each move
// (from the 202 to `done`, old copy removed) is followed by a window of the same length without
// one, the neighbour's requests running throughout on `connections` connections. Also reports the
// moving agency's reads (answered) and writes (503 `agency_moving` until the switch) meanwhile.
//
// `npm run bench` runs it with the rest; `node scripts/bench/move.mjs` runs it alone
// (BENCH_MOVE_CONTACTS, BENCH_MOVE_ROUNDS and BENCH_CONNECTIONS make it smaller or larger).
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/dev-vars.mjs";
import { median } from "./measure.mjs";
import { seedBenchmark } from "./seed.mjs";
import { Target, runnableConfig } from "./servers.mjs";

export const MOVE_CONTACTS = Number(process.env.BENCH_MOVE_CONTACTS || 20_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_MOVE_ROUNDS || 3));
const ADMIN_TOKEN = "bench-move-admin";
// Set here, so the seeded keys' hashes match whatever the checkout's .dev.vars says.
const PEPPER = "bench-move-pepper";
const NEIGHBOUR_CONTACTS = 1_000;
const MOVE_TIMEOUT_MS = 600_000;

const percentile = (sorted, p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);

/**
 * Requests on `connections` closed-loop connections until `keepGoing()` is false: each answer's
 * latency and status. A request that fails to complete throws.
 */
async function closedLoop(base, request, connections, keepGoing) {
  const answers = [];
  const lane = async () => {
    while (keepGoing()) {
      const started = performance.now();
      const res = await fetch(`${base}${request.path}`, { method: request.method ?? "GET", headers: request.headers, body: request.body?.() });
      await res.arrayBuffer();
      answers.push({ ms: performance.now() - started, status: res.status });
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  return answers;
}

/** p50 and p99 of the answers, which must all have one of `statuses`. */
function latencyOf(answers, label, statuses = [200]) {
  const wrong = answers.filter((a) => !statuses.includes(a.status));
  if (wrong.length > 0) throw new Error(`${label}: ${wrong.length} of ${answers.length} answers were not ${statuses.join("/")} (first: ${wrong[0].status})`);
  const sorted = answers.map((a) => a.ms).sort((a, b) => a - b);
  return { requests: answers.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function adminCall(base, method, path, body) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} /admin/v1${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Starts a move and resolves when it is `done` (the old copy removed), with its time from the 202. */
async function moveAndWait(base, agencyId, shard) {
  const started = performance.now();
  const { move } = await adminCall(base, "POST", `/agencies/${agencyId}/move`, { shard });
  for (;;) {
    const { move: now } = await adminCall(base, "GET", `/agencies/${agencyId}`);
    if (now.move_uuid !== move.move_uuid) throw new Error(`another move of the agency started: ${JSON.stringify(now)}`);
    if (now.state === "failed") throw new Error(`the move failed: ${now.error}`);
    if (now.state === "done") return { ms: performance.now() - started, rows: now.rows_copied };
    if (performance.now() - started > MOVE_TIMEOUT_MS) throw new Error(`the move did not finish within ${MOVE_TIMEOUT_MS / 1000} s: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function measureMove({ port, out, log, connections = 10, contacts = MOVE_CONTACTS, rounds = ROUNDS }) {
  const dir = join(out, "move");
  const target = new Target({
    label: "move",
    port,
    config: runnableConfig(join(ROOT, "wrangler.toml"), dir, { suffix: "-move", dropBuild: true }),
    root: ROOT,
    state: join(dir, "state"),
    vars: { LOG_LEVEL: "silent", ADMIN_TOKEN, TOKEN_PEPPER: PEPPER },
  });
  try {
    log(`move: seeding an agency of ${contacts.toLocaleString("en-US")} contacts and a neighbour of ${NEIGHBOUR_CONTACTS.toLocaleString("en-US")} on shard DB`);
    const file = await target.migrate();
    const [mover, neighbour] = seedBenchmark(file, { pepper: PEPPER, sizes: [contacts, NEIGHBOUR_CONTACTS] });
    await target.apply("DB_EU");
    await target.start();
    await target.waitReady();
    await adminCall(target.base, "PUT", "/shards/DB_EU", { region: "eu", open: true });

    const auth = (agency) => ({ Authorization: `Bearer ${agency.token}` });
    const neighbourList = { path: "/api/v2/contacts?limit=20", headers: auth(neighbour) };
    const moverRead = { path: `/api/v2/contacts/${mover.contactId}`, headers: auth(mover) };
    const moverWrite = {
      method: "POST",
      path: "/api/v2/contacts",
      headers: { ...auth(mover), "Content-Type": "application/json" },
      body: () => JSON.stringify({ first_name: "Moving", last_name: "Writer" }),
    };
    // Warm-up: the isolate, the D1 files and the keys' gates, before anything is measured.
    const warmUntil = performance.now() + 2_000;
    await closedLoop(target.base, neighbourList, connections, () => performance.now() < warmUntil);

    const each = [];
    for (let r = 1; r <= rounds; r++) {
      const to = r % 2 === 1 ? "DB_EU" : "DB";
      let moving = true;
      const moved = moveAndWait(target.base, mover.agencyId, to).finally(() => (moving = false));
      const [during, moverReads, moverWrites] = await Promise.all([
        closedLoop(target.base, neighbourList, connections, () => moving),
        closedLoop(target.base, moverRead, 1, () => moving),
        closedLoop(target.base, moverWrite, 1, () => moving),
      ]);
      const { ms, rows } = await moved;
      const quietUntil = performance.now() + Math.max(ms, 2_000);
      const without = await closedLoop(target.base, neighbourList, connections, () => performance.now() < quietUntil);
      const round = {
        to,
        moveMs: Math.round(ms),
        rowsCopied: rows,
        during: latencyOf(during, `the neighbour's GET /contacts during move ${r}`),
        without: latencyOf(without, `the neighbour's GET /contacts without a move (round ${r})`),
        moverReads: latencyOf(moverReads, "the moving agency's reads", [200]),
        moverWrites: { requests: moverWrites.length, refused: moverWrites.filter((a) => a.status === 503).length, ...latencyOf(moverWrites, "the moving agency's writes", [201, 503]) },
      };
      each.push(round);
      log(
        `  move ${r} to ${to}: ${rows} rows in ${round.moveMs} ms; neighbour p99 ${round.during.p99} ms during, ${round.without.p99} ms without ` +
          `(${round.during.requests} and ${round.without.requests} requests); mover reads p99 ${round.moverReads.p99} ms, writes ${round.moverWrites.refused}/${round.moverWrites.requests} refused`,
      );
    }
    const p99During = median(each.map((r) => r.during.p99));
    const p99Without = median(each.map((r) => r.without.p99));
    return {
      contacts,
      connections,
      rounds: each,
      p99During,
      p99Without,
      moveMs: median(each.map((r) => r.moveMs)),
      ratio: +(p99During / Math.max(p99Without, 1)).toFixed(2),
    };
  } catch (error) {
    console.error(`--- move (wrangler dev) output ---\n${target.output.slice(-3000)}`);
    throw error;
  } finally {
    target.stop();
  }
}

/** The budget line of `npm run bench`. */
export function moveBudget(move) {
  const name = `another agency's GET /contacts p99 during a move of ${move.contacts.toLocaleString("en-US")} contacts / without <= 2`;
  return {
    budget: name,
    value: `${move.ratio} (${move.p99During} vs ${move.p99Without} ms, medians of ${move.rounds.length} moves of ${move.moveMs} ms)`,
    ok: move.ratio <= 2,
  };
}

export function printMove(move) {
  if (!move) return;
  console.log(`another agency's GET /contacts?limit=20 (${move.connections} connections) while an agency of ${move.contacts.toLocaleString("en-US")} contacts moves, and as long again without:`);
  const header = `${"move".padEnd(12)}${"ms".padStart(8)}${"rows".padStart(8)}${"p99 during".padStart(12)}${"p99 without".padStart(13)}${"p50 during".padStart(12)}${"p50 without".padStart(13)}${"mover reads p99".padStart(17)}${"writes refused".padStart(16)}`;
  console.log(`${header}\n${"-".repeat(header.length)}`);
  move.rounds.forEach((r, i) => {
    console.log(
      `${`${i + 1} to ${r.to}`.padEnd(12)}${String(r.moveMs).padStart(8)}${String(r.rowsCopied).padStart(8)}${String(r.during.p99).padStart(12)}${String(r.without.p99).padStart(13)}` +
        `${String(r.during.p50).padStart(12)}${String(r.without.p50).padStart(13)}${String(r.moverReads.p99).padStart(17)}${`${r.moverWrites.refused}/${r.moverWrites.requests}`.padStart(16)}`,
    );
  });
  console.log(`p99 during / without (medians): ${move.ratio}\n`);
}

// Alone: `node scripts/bench/move.mjs`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  const log = (line) => console.log(`\x1b[35m[bench move ${Math.round((Date.now() - started) / 1000)}s]\x1b[0m ${line}`);
  const port = Number(process.env.BENCH_PORT || 8799) + 6;
  const move = await measureMove({ port, out: join(ROOT, ".bench"), log, connections: Number(process.env.BENCH_CONNECTIONS || 10) });
  printMove(move);
  const budget = moveBudget(move);
  console.log(`${budget.ok ? "PASS" : "MISS"}  ${budget.budget}  ${budget.value}`);
}

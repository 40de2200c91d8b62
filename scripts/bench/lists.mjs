// Lists that scale (issue 20), measured by `npm run bench` on the current Worker:
// the last page of the 100,000-contact agency by cursor and by page number, against its first
// page: rows read and p99, side by side (A B C, A B C, ...). Bulk upsert is scripts/bench/bulk.mjs.
import { alternate, metrics } from "./measure.mjs";

const PAGE = 20;

async function getJson(base, path, headers) {
  const res = await fetch(`${base}${path}`, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** A page of contacts whose size is checked, as the bench's other list scenarios are. */
const fullPage = (body) =>
  Array.isArray(body?.contacts) && body.contacts.length === PAGE ? undefined : `expected a page of ${PAGE} contacts: ${JSON.stringify(body).slice(0, 200)}`;

/**
 * The first page, and the last full page of the agency reached by a cursor and by its number.
 * The cursor comes from the page before the last (page mode gives next_cursor too), so the
 * cursor page starts at depth total - 20 (99,980 of 100,000).
 */
export async function measureDeepPages(base, agency, { rounds, warmup, seconds, connections, log }) {
  const headers = { Authorization: `Bearer ${agency.token}` };
  const total = (await getJson(base, `/api/v2/contacts?limit=${PAGE}`, headers)).pagination.total;
  const lastPage = Math.floor(total / PAGE);
  const before = await getJson(base, `/api/v2/contacts?limit=${PAGE}&page=${lastPage - 1}`, headers);
  const cursor = before.pagination.next_cursor;
  if (!cursor) throw new Error(`page ${lastPage - 1} of ${total} contacts has no next_cursor`);
  const depth = (lastPage - 1) * PAGE;
  const scenario = (name, path) => ({ name, method: "GET", path, headers, check: fullPage });
  const sides = [
    { key: "first", base, scenario: scenario("GET /contacts?limit=20 (first page)", `/api/v2/contacts?limit=${PAGE}`) },
    { key: "cursor", base, scenario: scenario(`GET /contacts?limit=20&cursor= (depth ${depth})`, `/api/v2/contacts?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`) },
    { key: "page", base, scenario: scenario(`GET /contacts?limit=20&page=${lastPage} (depth ${depth})`, `/api/v2/contacts?limit=${PAGE}&page=${lastPage}`) },
  ];
  const rows = {};
  for (const side of sides) rows[side.key] = await metrics(base, side.scenario);
  log(`deep pages of ${total} contacts: first page, cursor and page ${lastPage} (depth ${depth}), ${rounds} rounds side by side`);
  const { rounds: each, medians } = await alternate(sides, {
    rounds,
    warmup,
    seconds,
    connections,
    onRound: (r, round) => log(`  round ${r}: ${sides.map((s) => `${s.key} ${round[s.key].rps} req/s p99 ${round[s.key].p99} ms`).join(", ")}`),
  });
  return {
    total,
    depth,
    page: lastPage,
    sides: Object.fromEntries(sides.map((s) => [s.key, { name: s.scenario.name, ...medians[s.key], ...rows[s.key], rounds: each.map((r) => r[s.key]) }])),
  };
}

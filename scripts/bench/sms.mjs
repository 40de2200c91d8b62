// Outbound SMS accepted per second with the queue, against the direct send of before it (issue 29).
// `POST /messages` with `channel: sms` over 10 connections, SMS_PROVIDER = "twilio" pointed at a
// loopback fake of Twilio's Messages API that answers each send after TWILIO_LATENCY_MS (Twilio's
// own answer takes a few hundred milliseconds). The current Worker answers once the SMS is stored
// and queued, and its consumer sends it; the direct send answered after Twilio did. The direct
// side is a checkout from before the queue, BENCH_BASELINE, measured A B A B with the current
// Worker; without one it is not measured. After the load, the fake's count of texts says whether
// every SMS the current Worker accepted was sent, and sent once.
//
// Part of `npm run bench`; `node scripts/bench/sms.mjs` runs it alone (one agency of 1,000
// contacts, `BENCH_AB_SECONDS`, `BENCH_ROUNDS` and `BENCH_BASELINE` as in the full run).
import { createServer } from "node:http";
import { DatabaseSync } from "node:sqlite";
import { metrics, median, sideBySide } from "./measure.mjs";
import { runIfMain, scenarioTargets, seedOneAgency, withTargets } from "./servers.mjs";

export const TWILIO_LATENCY_MS = Number(process.env.BENCH_TWILIO_LATENCY_MS || 250);
const ACCOUNT_SID = "ACbench0000000000000000000000000001";
const AUTH_TOKEN = "bench-twilio-auth-token";
const DRAIN_TIMEOUT_MS = 120_000;

/** The vars that send a Worker's SMS through the fake Twilio on `port`. */
export const smsBenchVars = (port) => ({
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: ACCOUNT_SID,
  TWILIO_AUTH_TOKEN: AUTH_TOKEN,
  TWILIO_BASE_URL: `http://127.0.0.1:${port}`,
});

/**
 * A fake of Twilio's Messages API on loopback: `POST /2010-04-01/Accounts/{sid}/Messages.json`
 * (form-encoded, Basic auth) answers 201 with the message resource after `latencyMs`; `GET` of
 * the same path answers the page of messages sent to `To` from `From`. It counts every send by
 * body, so a body sent twice shows.
 */
export async function startFakeTwilio(port, latencyMs = TWILIO_LATENCY_MS) {
  const bodies = new Map();
  const sent = [];
  const path = `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, `http://127.0.0.1:${port}`);
      const json = (status, body) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (url.pathname !== path) return json(404, { code: 20404, message: "The requested resource was not found", status: 404 });
      if (req.headers.authorization !== `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString("base64")}`) {
        return json(401, { code: 20003, message: "Authenticate", status: 401 });
      }
      if (req.method === "GET") {
        const to = url.searchParams.get("To");
        const from = url.searchParams.get("From");
        return json(200, { messages: sent.filter((m) => m.to === to && m.from === from).reverse().slice(0, 50), next_page_uri: null, page: 0 });
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const now = new Date().toUTCString().replace("GMT", "+0000");
      const message = {
        sid: `SM${crypto.randomUUID().replaceAll("-", "")}`,
        account_sid: ACCOUNT_SID,
        to: form.get("To"),
        from: form.get("From"),
        body: form.get("Body"),
        status: "queued",
        direction: "outbound-api",
        date_created: now,
        date_sent: null,
        error_code: null,
        error_message: null,
      };
      sent.push(message);
      bodies.set(message.body, (bodies.get(message.body) ?? 0) + 1);
      setTimeout(() => json(201, message), latencyMs);
    });
  });
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  return {
    /** Texts sent with bodies starting `prefix`: how many, and how many bodies were sent more than once. */
    count(prefix) {
      let texts = 0;
      let doubled = 0;
      for (const [body, n] of bodies) {
        if (!body.startsWith(prefix)) continue;
        texts += n;
        if (n > 1) doubled++;
      }
      return { texts, distinct: [...bodies.keys()].filter((b) => b.startsWith(prefix)).length, doubled };
    },
    close: () => new Promise((done) => server.close(done)),
  };
}

/** Gives each benchmark agency (in the D1 file `dbFile`) the sender number the fake Twilio expects. */
export function seedSmsNumbers(dbFile, agencies) {
  const db = new DatabaseSync(dbFile);
  try {
    agencies.forEach((agency, i) => {
      const number = `+1415555${String(142 + i).padStart(4, "0")}`;
      db.prepare("INSERT INTO sms_numbers (number, agency_id, created_at) VALUES (?, ?, ?) ON CONFLICT (number) DO NOTHING").run(number, agency.agencyId, new Date().toISOString());
    });
  } finally {
    db.close();
  }
}

async function json(res, what) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `POST /messages` (sms) to the agency's contact, each with its own body under `prefix`. */
function smsScenario(name, agency, prefix) {
  let n = 0;
  return {
    name,
    method: "POST",
    path: "/api/v2/messages",
    headers: { Authorization: `Bearer ${agency.token}`, "Content-Type": "application/json" },
    body: () => JSON.stringify({ contact_uuid: agency.contactId, channel: "sms", body: `${prefix} ${++n} ${Math.random().toString(36).slice(2, 8)}` }),
  };
}

/** SMS the agency's contact has had stored on `base` (the partner's view). */
async function storedCount(base, agency) {
  const page = await json(
    await fetch(`${base}/api/v2/messages?contact_uuid=${agency.contactId}&channel=sms&limit=1`, { headers: { Authorization: `Bearer ${agency.token}` } }),
    "GET /messages",
  );
  return page.pagination.total;
}

/**
 * Accepted per second, current (queue) against baseline (direct send) when there is one, and
 * then whether the queue sent every accepted SMS exactly once, and how long it took to drain.
 */
export async function measureSms({ current, agency, baseline = null, baseAgency = null, twilio, rounds, warmup, seconds, connections, log }) {
  const run = `bench-sms-${Date.now().toString(36)}`;
  const sides = [{ key: "queue", base: current.base, scenario: smsScenario("POST /messages sms (queue)", agency, `${run} queue`) }];
  if (baseline) sides.push({ key: "direct", base: baseline.base, scenario: smsScenario("POST /messages sms (direct send)", baseAgency, `${run} direct`) });
  const measured = {};
  for (const side of sides) measured[side.key] = await metrics(side.base, side.scenario);
  log(`SMS: POST /messages (sms), Twilio answering in ${TWILIO_LATENCY_MS} ms, ${baseline ? `queue against direct send, ${rounds} rounds side by side` : "queue only (set BENCH_BASELINE for the direct send)"}`);
  const { each, bySide } = await sideBySide(sides, { rounds, warmup, seconds, connections, log });

  // Every SMS the queue side stored must reach Twilio once: wait for the consumer to drain.
  const accepted = await storedCount(current.base, agency);
  const started = Date.now();
  let count = twilio.count(`${run} queue`);
  while (count.distinct < accepted && Date.now() - started < DRAIN_TIMEOUT_MS) {
    await new Promise((r) => setTimeout(r, 250));
    count = twilio.count(`${run} queue`);
  }
  const drained = { accepted, sent: count.distinct, texts: count.texts, doubled: count.doubled, drainMs: Date.now() - started };
  log(`  queue: ${accepted} accepted, ${count.distinct} sent (${count.texts} texts, ${count.doubled} doubled) ${drained.drainMs} ms after the load`);
  return {
    twilioLatencyMs: TWILIO_LATENCY_MS,
    queue: { ...bySide.queue, ...measured.queue },
    direct: baseline ? { ...bySide.direct, ...measured.direct } : null,
    ratio: baseline ? +median(each.map((round) => round.queue.rps / Math.max(round.direct.rps, 1))).toFixed(2) : null,
    drained,
  };
}

/** `node scripts/bench/sms.mjs`: this scenario alone, on servers of its own. */
async function standalone() {
  const portOffset = 10;
  const twilioPort = Number(process.env.BENCH_PORT || 8799) + portOffset + 2;
  const log = (line) => console.log(`\x1b[35m[bench sms]\x1b[0m ${line}`);
  const twilio = await startFakeTwilio(twilioPort);
  const vars = { LOG_LEVEL: "silent", BENCH_METRICS: "on", ...smsBenchVars(twilioPort) };
  const { current, baseline, targets } = scenarioTargets("sms", { portOffset, vars });
  try {
    await withTargets(targets, async () => {
      const { agency, file } = await seedOneAgency(current);
      seedSmsNumbers(file, [agency]);
      let baseAgency = null;
      if (baseline) {
        const seeded = await seedOneAgency(baseline);
        baseAgency = seeded.agency;
        seedSmsNumbers(seeded.file, [baseAgency]);
      }
      for (const t of targets) await t.start();
      await Promise.all(targets.map((t) => t.waitReady()));
      const result = await measureSms({
        current,
        agency,
        baseline,
        baseAgency,
        twilio,
        rounds: Math.max(3, Number(process.env.BENCH_ROUNDS || 3)),
        warmup: Number(process.env.BENCH_AB_WARMUP_SECONDS || 1),
        seconds: Number(process.env.BENCH_AB_SECONDS || process.env.BENCH_SECONDS || 4),
        connections: Number(process.env.BENCH_CONNECTIONS || 10),
        log,
      });
      console.log(JSON.stringify(result, null, 2));
      for (const line of smsLines(result, Number(process.env.BENCH_CONNECTIONS || 10))) console.log(line);
    });
  } finally {
    await twilio.close();
  }
}

/** The scenario's lines of the report. */
export function smsLines(sms, connections) {
  const line = (s) => `${s.name.padEnd(40)}${String(s.rps).padStart(8)}${String(s.p50).padStart(8)}${String(s.p99).padStart(8)}${String(s.d1RoundTrips).padStart(10)}`;
  const header = `${"request".padEnd(40)}${"req/s".padStart(8)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}${"D1 trips".padStart(10)}`;
  const d = sms.drained;
  return [
    `outbound SMS accepted per second, Twilio answering in ${sms.twilioLatencyMs} ms, ${connections} connections, medians of ${sms.queue.rounds.length} rounds side by side:`,
    header,
    "-".repeat(header.length),
    line(sms.queue),
    sms.direct ? line(sms.direct) : `${"POST /messages sms (direct send)".padEnd(40)} not measured: set BENCH_BASELINE to a checkout from before the queue`,
    sms.ratio === null ? "" : `queue / direct send: ${sms.ratio}x the SMS accepted per second (median of the rounds' ratios)`,
    `the queue sent ${d.sent} of ${d.accepted} accepted SMS (${d.texts} texts, ${d.doubled} sent twice), the last ${d.drainMs} ms after the load ended`,
    "",
  ];
}

runIfMain(import.meta.url, standalone);

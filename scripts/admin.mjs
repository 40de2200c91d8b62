#!/usr/bin/env node
// Operator CLI: a thin wrapper over the operator API (/admin/v1, docs/decisions/operator-api.md).
// Runs on Node 20+ with built-ins only, so plain `node scripts/admin.mjs` works too.
//
//   npm run admin -- <command> [--flags]        npm run admin -- help
//
// ADMIN_URL (default http://127.0.0.1:8787) and ADMIN_TOKEN (default: from .dev.vars)
// pick the server, so the same CLI drives a deployed Worker.
import { parseArgs } from "node:util";
import { readDevVars } from "./lib/dev-vars.mjs";
import { errorMessage, requestJson, UnreachableError } from "./lib/http.mjs";

const DEFAULT_URL = "http://127.0.0.1:8787";
const ADMIN_PREFIX = "/admin/v1";

class UsageError extends Error {}

const list = (value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** A number when the flag reads as one; otherwise the text, so the server's validation names the field. */
const number = (value) => (value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value);

const seg = (value) => encodeURIComponent(value);

/** Drops undefined values so only the flags given are sent. */
const compact = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));

const str = (description, extra = {}) => ({ type: "string", description, ...extra });
const required = (description, extra = {}) => str(description, { required: true, ...extra });
const agencyFlag = { agency: required("agency_uuid") };
const keyFlag = { key: required("key_uuid") };
/** A slice of the directory (the orphan sweep), or every slice with --all. */
const sliceFlags = {
  after: str("start after this record id (the previous slice's next_after)"),
  limit: str("directory rows to look at, 1 to 1000 (server default 1000)"),
  all: { type: "boolean", description: "follow next_after through the whole directory, one request per slice" },
};

/**
 * Every command: its flags (all `--kebab-case`) and the request it sends. Record creators
 * take their fields (docs/decisions/operator-api.md) as flags; `--data '<json>'` adds or
 * overrides body fields.
 */
const commands = {
  "list-agencies": {
    summary: "List all agencies",
    flags: {},
    request: () => ["GET", "/agencies"],
  },
  "create-agency": {
    summary: "Create an agency, on the least full open shard (of --region), or on --shard",
    flags: {
      name: required("agency name"),
      timezone: required("IANA time zone, e.g. America/New_York"),
      region: str("D1 location hint (wnam, enam, weur, eeur, apac, oc) or eu"),
      shard: str("shard name, e.g. DB_EU (instead of --region)"),
    },
    request: (f) => ["POST", "/agencies", compact({ name: f.name, timezone: f.timezone, region: f.region, shard: f.shard })],
  },
  "get-agency": {
    summary: "Show an agency, with its shard and region",
    flags: { ...agencyFlag },
    request: (f) => ["GET", `/agencies/${seg(f.agency)}`],
  },
  "move-agency": {
    summary: "Move an agency to another shard (copy, verify, switch, clean up) and follow it to its end; its writes pause meanwhile",
    flags: {
      ...agencyFlag,
      shard: required("target shard name"),
      "no-wait": { type: "boolean", description: "print the started move and return, without following it" },
    },
    request: (f) => ["POST", `/agencies/${seg(f.agency)}/move`, { shard: f.shard }],
    // The move runs as a Workflow (docs/operations.md, Moving an agency): the answer is 202 at once.
    follow: (f) => (f["no-wait"] ? undefined : `/agencies/${seg(f.agency)}`),
  },
  "set-sms-number": {
    summary: "Assign the agency's SMS sender number (one agency per number); Twilio's inbound webhook then routes by it",
    flags: { ...agencyFlag, number: required("E.164 number, e.g. +14155550100") },
    request: (f) => ["PUT", `/agencies/${seg(f.agency)}/sms-number`, { number: f.number }],
  },
  "list-shards": {
    summary: "List shards with their region, whether they take new agencies, agency count and size",
    flags: {},
    request: () => ["GET", "/shards"],
  },
  "register-shard": {
    summary: "Register a bound D1 database as a shard, or change its region",
    flags: {
      name: required("binding name: DB or DB_<NAME>"),
      region: str("D1 location hint (wnam, enam, weur, eeur, apac, oc) or eu it was created with"),
      closed: { type: "boolean", description: "takes no new agencies (until open-shard)" },
    },
    request: (f) => ["PUT", `/shards/${seg(f.name)}`, compact({ region: f.region ?? null, open: !f.closed })],
  },
  "open-shard": {
    summary: "Let a shard take new agencies",
    flags: { name: required("shard name") },
    request: (f) => ["PATCH", `/shards/${seg(f.name)}`, { open: true }],
  },
  "close-shard": {
    summary: "Stop placing new agencies on a shard (its agencies stay; moves may still target it)",
    flags: { name: required("shard name") },
    request: (f) => ["PATCH", `/shards/${seg(f.name)}`, { open: false }],
  },
  "create-key": {
    summary: "Create an API key; prints its access token and rotate key once",
    flags: {
      ...agencyFlag,
      name: required("key name"),
      scopes: required("comma-separated scopes, e.g. contacts,fields or *"),
      "no-expiry": { type: "boolean", description: "never expires (only for a key whose only scope is calendar)" },
      "expires-at": str("ISO 8601 expiry instead of 30 days from now"),
      multiplier: str("rate-limit multiplier, e.g. 2"),
    },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/keys`,
      compact({
        name: f.name,
        scopes: list(f.scopes),
        expires: f["no-expiry"] ? false : undefined,
        expires_at: f["expires-at"],
        rate_limit_multiplier: f.multiplier === undefined ? undefined : number(f.multiplier),
      }),
    ],
  },
  "list-keys": {
    summary: "List an agency's keys (never their secrets)",
    flags: { ...agencyFlag },
    request: (f) => ["GET", `/agencies/${seg(f.agency)}/keys`],
  },
  "edit-key": {
    summary: "Rename a key, replace its scopes or set its rate-limit multiplier",
    flags: {
      ...keyFlag,
      name: str("new name"),
      scopes: str("comma-separated scopes; replaces the current list"),
      multiplier: str("rate-limit multiplier"),
    },
    request: (f) => {
      const body = compact({
        name: f.name,
        scopes: f.scopes === undefined ? undefined : list(f.scopes),
        rate_limit_multiplier: f.multiplier === undefined ? undefined : number(f.multiplier),
      });
      if (Object.keys(body).length === 0 && f.data === undefined) {
        throw new UsageError("edit-key needs at least one of --name, --scopes, --multiplier");
      }
      return ["PATCH", `/keys/${seg(f.key)}`, body];
    },
  },
  "revoke-key": {
    summary: "Revoke a key; its token stops working at once",
    flags: { ...keyFlag },
    request: (f) => ["POST", `/keys/${seg(f.key)}/revoke`],
  },
  "rotate-secrets": {
    summary: "Replace both secrets of a key (the old ones stop working)",
    flags: { ...keyFlag },
    request: (f) => ["POST", `/keys/${seg(f.key)}/rotate-secrets`],
  },
  "regenerate-rotate-key": {
    summary: "Replace only the rotate key (the access token keeps working)",
    flags: { ...keyFlag },
    request: (f) => ["POST", `/keys/${seg(f.key)}/regenerate-rotate-key`],
  },
  "security-events": {
    summary: "Security events of a key (replayed rotate keys)",
    flags: { ...keyFlag },
    request: (f) => ["GET", `/keys/${seg(f.key)}/security-events`],
  },
  "legacy-calendar-token": {
    summary: "Create a non-expiring legacy calendar token (calendar scope only)",
    flags: { ...agencyFlag },
    request: (f) => ["POST", `/agencies/${seg(f.agency)}/legacy-calendar-tokens`],
  },
  "create-member": {
    summary: "Add a team member",
    flags: { ...agencyFlag, name: required("full name"), email: required("email"), role: required("owner, admin or agent") },
    request: (f) => ["POST", `/agencies/${seg(f.agency)}/members`, { name: f.name, email: f.email, role: f.role }],
  },
  "path-event": {
    summary: "Record a hosted-path event (view, lead, booking)",
    flags: {
      ...agencyFlag,
      path: required("path_uuid"),
      type: required("view, lead or booking"),
      step: str("step name"),
      at: str("ISO 8601 time of the event (default now)"),
    },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/path-events`,
      compact({ path_uuid: f.path, type: f.type, step: f.step, at: f.at }),
    ],
  },
  "voice-agent": {
    summary: "Create a Voice AI agent",
    flags: { ...agencyFlag, name: required("agent name"), "phone-numbers": str("comma-separated outbound numbers (E.164)") },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/voice-agents`,
      { name: f.name, phone_numbers: f["phone-numbers"] === undefined ? [] : list(f["phone-numbers"]) },
    ],
  },
  "lead-order": {
    summary: "Create a lead order",
    flags: {
      ...agencyFlag,
      name: required("order name"),
      "daily-max": required("leads per day, >= 1"),
      states: required("comma-separated US state codes, e.g. TX,FL"),
    },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/lead-orders`,
      { name: f.name, daily_max: number(f["daily-max"]), states: list(f.states) },
    ],
  },
  "booking-widget": {
    summary: "Create a booking widget",
    flags: {
      ...agencyFlag,
      name: required("widget name"),
      "duration-minutes": required("appointment length in minutes"),
      agent: str("agent_uuid of the team member it books for"),
    },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/booking-widgets`,
      compact({ name: f.name, agent_uuid: f.agent, duration_minutes: number(f["duration-minutes"]) }),
    ],
  },
  message: {
    summary: "Create a message (simulates an inbound SMS by default)",
    flags: {
      ...agencyFlag,
      contact: required("contact_uuid"),
      body: required("message text"),
      channel: str("sms or note", { default: "sms" }),
      direction: str("inbound, outbound or internal", { default: "inbound" }),
    },
    request: (f) => [
      "POST",
      `/agencies/${seg(f.agency)}/messages`,
      { contact_uuid: f.contact, channel: f.channel, direction: f.direction, body: f.body },
    ],
  },
  "dashboard-link": {
    summary: "Issue a one-time dashboard sign-in link (15 minutes) for an owner or admin; prints the URL",
    flags: { member: required("agent_uuid of an owner or admin member") },
    request: (f) => ["POST", `/members/${seg(f.member)}/dashboard-links`],
    // The URL alone on stdout, so `open "$(npm run -s admin -- dashboard-link ...)"` works.
    print: (body) => ({ stdout: body.url, stderr: `valid once, until ${body.expires_at}` }),
  },
  grants: {
    summary: "List an agency's connected apps (OAuth grants); --include-revoked for the revoked ones too",
    flags: { ...agencyFlag, "include-revoked": { type: "boolean", description: "also list revoked grants" } },
    request: (f) => ["GET", `/agencies/${seg(f.agency)}/grants${f["include-revoked"] ? "?include_revoked=true" : ""}`],
  },
  "grant-multiplier": {
    summary: "Scale a connected app's rate limits (e.g. 10 for a high-volume app)",
    flags: { ...agencyFlag, grant: required("grant_id (16 characters)"), multiplier: required("rate-limit multiplier, 0.01 to 10000") },
    request: (f) => ["PATCH", `/agencies/${seg(f.agency)}/grants/${seg(f.grant)}`, { rate_limit_multiplier: number(f.multiplier) }],
  },
  "revoke-grant": {
    summary: "Revoke a connected app: its tokens are refused from the next request",
    flags: { ...agencyFlag, grant: required("grant_id (16 characters)") },
    request: (f) => ["DELETE", `/agencies/${seg(f.agency)}/grants/${seg(f.grant)}`],
    // 204: nothing to print but the outcome.
    print: () => ({ stdout: "revoked" }),
  },
  "directory-orphans": {
    summary: "List directory rows of keys or members whose record never came (a slice of the directory; --all for every slice)",
    flags: sliceFlags,
    request: (f) => {
      const query = new URLSearchParams(compact({ after: f.after, limit: f.limit }));
      return ["GET", `/directory/orphans${query.size > 0 ? `?${query}` : ""}`];
    },
    slices: "orphans",
  },
  "purge-directory-orphans": {
    summary: "Delete directory rows whose record never came, and nothing else (a slice of the directory; --all for every slice)",
    flags: sliceFlags,
    request: (f) => ["POST", "/directory/orphans/purge", compact({ after: f.after, limit: f.limit === undefined ? undefined : number(f.limit) })],
    slices: "purged",
  },
  "wallet-credit": {
    summary: "Credit an agency's Voice AI wallet",
    flags: { ...agencyFlag, "amount-cents": required("amount in cents, e.g. 5000") },
    request: (f) => ["POST", `/agencies/${seg(f.agency)}/wallet/credit`, { amount_cents: number(f["amount-cents"]) }],
  },
};

const globalFlags = {
  data: { type: "string", description: "JSON object merged into the request body (POST/PATCH only)" },
  help: { type: "boolean", short: "h", description: "show this command's flags" },
};

function commandUsage(name) {
  const command = commands[name];
  const lines = [`npm run admin -- ${name}${flagSynopsis(command.flags)}`, `  ${command.summary}`];
  for (const [flag, spec] of Object.entries(command.flags)) {
    const value = spec.type === "boolean" ? "" : " <value>";
    const notes = [spec.required ? "required" : "optional", spec.default ? `default ${spec.default}` : ""].filter(Boolean);
    lines.push(`    --${flag}${value}`.padEnd(34) + `${spec.description} (${notes.join(", ")})`);
  }
  return lines.join("\n");
}

function flagSynopsis(flags) {
  return Object.entries(flags)
    .map(([flag, spec]) => {
      const text = spec.type === "boolean" ? `--${flag}` : `--${flag} <${flag}>`;
      return spec.required ? ` ${text}` : ` [${text}]`;
    })
    .join("");
}

function usage() {
  const width = Math.max(...Object.keys(commands).map((n) => n.length)) + 2;
  return [
    "Operator CLI for the Partner API (wraps /admin/v1).",
    "",
    "Usage: npm run admin -- <command> [--flags]     (or: node scripts/admin.mjs <command> ...)",
    "       npm run admin -- help <command>",
    "",
    "Commands:",
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    "",
    "Every command also takes --data '<json>' (extra body fields) and --help.",
    "",
    "Environment:",
    `  ADMIN_URL    server base URL (default ${DEFAULT_URL}; after \`PORT=<port> npm run dev\`, http://127.0.0.1:<port>)`,
    "  ADMIN_TOKEN  operator token (default: ADMIN_TOKEN from .dev.vars, written by `npm run dev`)",
    "",
    "Prints the server's JSON answer; exits 1 on a non-2xx answer (message on stderr), 2 on a usage error.",
  ].join("\n");
}

function parseCommand(name, args) {
  const command = commands[name];
  const options = { ...globalFlags };
  for (const [flag, spec] of Object.entries(command.flags)) {
    options[flag] = { type: spec.type, ...(spec.default !== undefined ? { default: spec.default } : {}) };
  }
  let values;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${error.message}\n\n${commandUsage(name)}`);
  }
  if (values.help) return { help: true };
  const missing = Object.entries(command.flags)
    .filter(([flag, spec]) => spec.required && (values[flag] === undefined || values[flag] === ""))
    .map(([flag]) => `--${flag}`);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.join(", ")}\n\n${commandUsage(name)}`);

  const [method, path, built] = command.request(values);
  let extra = {};
  if (values.data !== undefined) {
    if (method === "GET") throw new UsageError(`--data is not used by ${name} (a GET)`);
    try {
      extra = JSON.parse(values.data);
    } catch (error) {
      throw new UsageError(`--data is not valid JSON: ${error.message}`);
    }
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) throw new UsageError("--data must be a JSON object");
  }
  const withData = (request) => (values.data === undefined ? request : [request[0], request[1], { ...request[2], ...extra }]);
  const body = withData([method, path, built])[2];
  // --all: the same request again from each slice's next_after, until the directory's end, --data in each.
  const next = command.slices && values.all ? (after) => withData(command.request({ ...values, after })) : null;
  return { method, path, body, print: command.print, slices: next && { key: command.slices, next }, follow: command.follow?.(values) };
}

/** Every slice of a sliced command, merged into one answer: the rows of each, and the rows examined in all. */
async function allSlices(baseUrl, parsed) {
  const rows = [];
  let examined = 0;
  let request = [parsed.method, parsed.path, parsed.body];
  for (;;) {
    const [method, path, body] = request;
    const res = await requestJson(baseUrl, method, `${ADMIN_PREFIX}${path}`, { token: adminToken(), body });
    if (!res.ok) return res;
    rows.push(...res.body[parsed.slices.key]);
    examined += res.body.examined;
    if (res.body.next_after === null) return { ...res, body: { success: true, [parsed.slices.key]: rows, examined, next_after: null } };
    request = parsed.slices.next(res.body.next_after);
  }
}

const FINAL_MOVE_STATES = new Set(["done", "failed"]);
const POLL_MS = Number(process.env.ADMIN_POLL_MS || 1000);
const thousands = (n) => n.toLocaleString("en-US");

/** One line of a move's progress: its state, and the rows copied of those to copy. */
function moveProgress(move) {
  const of = move.rows_total === null ? "" : ` of ${thousands(move.rows_total)}`;
  const share = move.rows_total ? ` (${Math.floor((100 * move.rows_copied) / move.rows_total)}%)` : "";
  return `${move.state}: ${thousands(move.rows_copied)}${of} rows copied${share}`;
}

/**
 * Follows a move to its end: reads the agency every POLL_MS, prints each change of the move's
 * progress on stderr, and resolves with the last answer (the agency and its move, done or failed).
 * Interrupting the CLI leaves the move running; `get-agency` shows it.
 */
async function followMove(baseUrl, token, path, moveUuid) {
  let last = "";
  for (;;) {
    const res = await requestJson(baseUrl, "GET", `${ADMIN_PREFIX}${path}`, { token });
    if (!res.ok) return res;
    const move = res.body?.move;
    if (move?.move_uuid !== moveUuid) return res;
    const line = moveProgress(move);
    if (line !== last) console.error(line);
    last = line;
    if (FINAL_MOVE_STATES.has(move.state)) return res;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function adminToken() {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const fromFile = readDevVars().ADMIN_TOKEN;
  if (fromFile) return fromFile;
  throw new UsageError("No operator token: set ADMIN_TOKEN, or run `npm run dev` once to create .dev.vars with one.");
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    const topic = rest[0];
    if (topic && commands[topic]) console.log(commandUsage(topic));
    else if (topic) throw new UsageError(`Unknown command: ${topic}\n\n${usage()}`);
    else console.log(usage());
    return 0;
  }
  if (!Object.hasOwn(commands, name)) throw new UsageError(`Unknown command: ${name}\n\n${usage()}`);

  const parsed = parseCommand(name, rest);
  if (parsed.help) {
    console.log(commandUsage(name));
    return 0;
  }
  const baseUrl = process.env.ADMIN_URL || DEFAULT_URL;
  const token = adminToken();
  let res = parsed.slices
    ? await allSlices(baseUrl, parsed)
    : await requestJson(baseUrl, parsed.method, `${ADMIN_PREFIX}${parsed.path}`, { token, body: parsed.body });
  if (res.ok && parsed.follow && res.body?.move) {
    console.error(`move ${res.body.move.move_uuid} started: ${res.body.move.from} -> ${res.body.move.to}`);
    res = await followMove(baseUrl, token, parsed.follow, res.body.move.move_uuid);
    if (res.ok && res.body?.move?.state === "failed") {
      console.log(JSON.stringify(res.body, null, 2));
      console.error(`Error: the move failed and was undone; the agency stays on shard ${res.body.move.from}. ${res.body.move.error}`);
      return 1;
    }
  }
  if (res.ok && parsed.print) {
    const { stdout, stderr } = parsed.print(res.body);
    console.log(stdout);
    if (stderr) console.error(stderr);
    return 0;
  }
  console.log(typeof res.body === "string" ? res.body : JSON.stringify(res.body, null, 2));
  if (res.ok) return 0;

  let hint = "";
  if (res.status === 401) hint = "\nhint: ADMIN_TOKEN does not match the server's (check .dev.vars or the Worker secret)";
  if (res.status === 404 && res.body?.error === "Route not found") {
    hint = "\nhint: the server has no ADMIN_TOKEN configured, so the operator API is off (or the URL is wrong)";
  }
  console.error(`Error (HTTP ${res.status}): ${errorMessage(res)}${hint}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exitCode = 2;
    } else if (error instanceof UnreachableError) {
      console.error(`${error.message}\nhint: start the server with \`npm run dev\`, or set ADMIN_URL`);
      process.exitCode = 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  },
);

#!/usr/bin/env node
// `npm run webhooks:listen`: a local webhook receiver for the demo agency, like `stripe listen`.
//   1. starts an HTTP server on 127.0.0.1 (WEBHOOKS_LISTEN_PORT, default 8789);
//   2. through the operator API (ADMIN_TOKEN from .dev.vars), gives the demo agency a key with
//      the `webhooks` scope, and registers the server as an endpoint for every event type;
//   3. verifies the signature of every delivery with the `standardwebhooks` package and prints
//      one line per event: type, event id and the id of the object;
//   4. on Ctrl+C, deletes the endpoint and revokes the key.
// Needs `npm run dev` running (it sets ALLOW_LOOPBACK_WEBHOOKS=true in .dev.vars, which lets
// the local Worker deliver to http://127.0.0.1). API_URL overrides http://127.0.0.1:8787;
// --agency <uuid> listens for another agency than "Demo Agency".
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { readDevVars } from "./lib/dev-vars.mjs";
import { errorMessage, requestJson, UnreachableError } from "./lib/http.mjs";
import { DEMO_AGENCY } from "./lib/seed.mjs";

const BASE_URL = process.env.API_URL || `http://127.0.0.1:${process.env.PORT || 8787}`;
const PORT = Number(process.env.WEBHOOKS_LISTEN_PORT || 8789);
const KEY_NAME = "webhooks:listen";
const ENDPOINT_URL = `http://127.0.0.1:${PORT}/webhooks`;

const color = (code) => (text) => (process.stdout.isTTY ? `\x1b[${code}m${text}\x1b[0m` : text);
const [green, red, dim, bold] = [color(32), color(31), color(2), color(1)];
const fail = (message) => {
  console.error(red(`webhooks:listen: ${message}`));
  process.exit(1);
};

const adminToken = process.env.ADMIN_TOKEN || readDevVars().ADMIN_TOKEN;
if (!adminToken) fail("no ADMIN_TOKEN: run `npm run dev` first (it writes one to .dev.vars)");
const admin = (method, path, body) => requestJson(BASE_URL, method, `/admin/v1${path}`, { token: adminToken, body });
const agencyFlag = process.argv.indexOf("--agency");

/** The agency to listen for: --agency, else the demo agency `npm run dev` seeds. */
async function agencyUuid() {
  if (agencyFlag !== -1) return process.argv[agencyFlag + 1];
  const res = await admin("GET", "/agencies");
  if (!res.ok) fail(`listing agencies failed: ${errorMessage(res)}`);
  const demo = res.body.agencies.find((a) => a.name === DEMO_AGENCY.name);
  if (!demo) fail(`no "${DEMO_AGENCY.name}": run \`npm run dev\` first, or pass --agency <uuid>`);
  return demo.agency_uuid;
}

/** The object's own id: the first `*_uuid` field of `data.object`. */
const objectIdOf = (object) => {
  const entry = Object.entries(object ?? {}).find(([key]) => key.endsWith("_uuid"));
  return entry ? `${entry[0]}=${entry[1]}` : "";
};

async function main() {
  const agency = await agencyUuid();
  // Keys left by an earlier run that did not stop cleanly.
  const keys = await admin("GET", `/agencies/${agency}/keys`);
  for (const key of keys.ok ? keys.body.keys : []) {
    if (key.name === KEY_NAME && !key.revoked_at) await admin("POST", `/keys/${key.key_uuid}/revoke`);
  }
  const created = await admin("POST", `/agencies/${agency}/keys`, { name: KEY_NAME, scopes: ["webhooks"] });
  if (!created.ok) fail(`creating a key failed: ${errorMessage(created)}`);
  const token = created.body.access_token;
  const partner = (method, path, body) => requestJson(BASE_URL, method, `/api/v2${path}`, { token, body });

  const existing = await partner("GET", "/webhook-endpoints?limit=100");
  for (const endpoint of existing.ok ? existing.body.webhook_endpoints : []) {
    if (endpoint.url === ENDPOINT_URL) await partner("DELETE", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`);
  }

  let webhook;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const event = webhook.verify(body, req.headers);
        console.log(`${green("✔")} ${bold(event.type.padEnd(22))} ${event.event_uuid}  ${dim(objectIdOf(event.data?.object))}`);
        res.writeHead(204).end();
      } catch (error) {
        console.log(`${red("✘")} signature check failed (${error.message}) for webhook-id ${req.headers["webhook-id"]}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(PORT, "127.0.0.1", resolve));

  const endpoint = await partner("POST", "/webhook-endpoints", { url: ENDPOINT_URL, events: ["*"], description: "npm run webhooks:listen" });
  if (!endpoint.ok) {
    const hint = endpoint.body?.error?.includes("https") ? " (is ALLOW_LOOPBACK_WEBHOOKS=true in .dev.vars? `npm run dev` adds it; restart it)" : "";
    fail(`registering ${ENDPOINT_URL} failed: ${errorMessage(endpoint)}${hint}`);
  }
  webhook = new Webhook(endpoint.body.secret);
  const endpointUuid = endpoint.body.webhook_endpoint.webhook_endpoint_uuid;
  console.log(`Listening on ${ENDPOINT_URL} for every event of agency ${agency} (endpoint ${endpointUuid}).`);
  console.log(dim("Each delivery's signature is verified with the standardwebhooks package. Ctrl+C stops."));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    await partner("DELETE", `/webhook-endpoints/${endpointUuid}`).catch(() => {});
    await admin("POST", `/keys/${created.body.key.key_uuid}/revoke`).catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => fail(error instanceof UnreachableError ? `${error.message} (is \`npm run dev\` running?)` : (error.stack ?? String(error))));

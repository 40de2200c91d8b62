import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { AccessGate } from "@/durable-objects/access-gate";
import type { Env } from "@/env";
import { grantGate, keyGate } from "@/lib/auth/gate";
import { advanceClock, restoreClock, setClock } from "../helpers/clock";
import { signIn } from "../helpers/dashboard";
import { setupAgencyOn } from "../helpers/factories";
import { api, expectError } from "../helpers/http";
import { finishHeldMove, holdMove, rollBackHeldMove } from "../helpers/moves";
import { connectApp } from "../helpers/oauth";
import { shardDb } from "../helpers/shards";

/**
 * Where a key's (or a grant's) agency lives is read from the directory once and kept until the
 * gate is told otherwise (docs/decisions/authentication.md, "The gate keeps the key's shard").
 * The directory reads are counted on the gate itself: its own environment's DB, wrapped so that
 * every statement naming a directory table counts, whatever the shard the agency lives on.
 */

const workerEnv = env as unknown as Env;
const WRITES_PAUSED = "The agency's data is being moved to another database and writes are paused. Retry after 10 seconds.";
/** Past the minute a gate keeps a key's row (KEY_CACHE_MS), which used to be the directory's too. */
const PAST_THE_MINUTE = 61_000;

afterEach(() => restoreClock());

/** Counts the directory reads of the gate's live instance from now on (a restarted instance counts none until this is called again). */
async function countDirectoryReads(stub: DurableObjectStub<AccessGate>) {
  const reads = { count: 0 };
  await runInDurableObject(stub, (gate: AccessGate) => {
    const own = (gate as unknown as { env: Env }).env;
    const directory = own.DB;
    const counted = new Proxy(directory, {
      get(target, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            if (/agency_directory|directory_records/.test(query)) reads.count++;
            return target.prepare(query);
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    Object.defineProperty(gate, "env", { value: new Proxy(own, { get: (target, prop) => (prop === "DB" ? counted : Reflect.get(target, prop)) }), configurable: true });
  });
  return reads;
}

const newContact = (token: string) => api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace" } });
const contactOn = (shard: string, contactUuid: string) => shardDb(shard).prepare("SELECT count(*) AS n FROM contacts WHERE id = ?").bind(contactUuid).first("n");

describe("a key's gate and the directory", () => {
  it("reads the directory on its first request only; after that the key's row alone, on its shard, once a minute", async () => {
    setClock(Date.now());
    const { keyUuid, token } = await setupAgencyOn("DB_EU");
    const reads = await countDirectoryReads(keyGate(workerEnv, keyUuid));
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    expect(reads.count).toBe(1);
    for (let minute = 0; minute < 3; minute++) {
      advanceClock(PAST_THE_MINUTE);
      expect((await api("GET", "/contacts", { token })).status).toBe(200);
    }
    expect(reads.count).toBe(1);

    // The row itself is still read again after its minute: a scope taken away on the shard,
    // with no word to the gate, holds from then on (its changes tell the gate at once anyway).
    await shardDb("DB_EU").prepare(`UPDATE api_keys SET scopes = '["calendar"]' WHERE id = ?`).bind(keyUuid).run();
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    advanceClock(PAST_THE_MINUTE);
    expect((await api("GET", "/contacts", { token })).status).toBe(403);
    expect(reads.count).toBe(1);
  });

  it("reads the directory once again after a restart, and not after", async () => {
    setClock(Date.now());
    const { keyUuid, token } = await setupAgencyOn("DB");
    const stub = keyGate(workerEnv, keyUuid);
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    await evictDurableObject(stub);
    const reads = await countDirectoryReads(stub);
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    advanceClock(PAST_THE_MINUTE);
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    expect(reads.count).toBe(1);
  });

  it("learns a move's fence and its switch when the move tells it, at once: writes 503 meanwhile, then land on the new shard", async () => {
    const { agencyUuid, keyUuid, token } = await setupAgencyOn("DB");
    const reads = await countDirectoryReads(keyGate(workerEnv, keyUuid));
    expect((await newContact(token)).status).toBe(201);
    expect(reads.count).toBe(1);

    const move = await holdMove(agencyUuid, "DB_EU", { tell: true });
    const refused = await newContact(token);
    expectError(refused, 503, WRITES_PAUSED, "agency_moving");
    expect(refused.headers.get("Retry-After")).toBe("10");
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(1);
    expect(reads.count).toBe(2);

    await finishHeldMove(move);
    const created = await newContact(token);
    expect(created.status).toBe(201);
    expect(await contactOn("DB_EU", created.body.contact.contact_uuid)).toBe(1);
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(2);
    expect(reads.count).toBe(3);
  });

  it("finds a fence, a switch or a rollback it was never told of on the shard it knows, within the row's minute, and only then reads the directory", async () => {
    setClock(Date.now());
    const { agencyUuid, keyUuid, token } = await setupAgencyOn("DB");
    const reads = await countDirectoryReads(keyGate(workerEnv, keyUuid));
    expect((await newContact(token)).status).toBe(201);

    // The fence, untold: the shard's triggers refuse the write; after the minute the gate finds the fence and reads the directory.
    const first = await holdMove(agencyUuid, "DB_EU");
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");
    expect(reads.count).toBe(1);
    advanceClock(PAST_THE_MINUTE);
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");
    expect(reads.count).toBe(2);
    // The shard and the gate agree now: the next minute reads the row only.
    advanceClock(PAST_THE_MINUTE);
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");
    expect(reads.count).toBe(2);

    // The switch, untold: the old shard says `moved`, and the gate follows the agency.
    await finishHeldMove(first, { tell: false });
    advanceClock(PAST_THE_MINUTE);
    const moved = await newContact(token);
    expect(moved.status).toBe(201);
    expect(await contactOn("DB_EU", moved.body.contact.contact_uuid)).toBe(1);
    expect(reads.count).toBe(3);

    // A rollback, untold, after the gate heard of the fence: the fence is gone from the shard, and so is `moving`.
    const second = await holdMove(agencyUuid, "DB", { tell: true });
    expectError(await newContact(token), 503, WRITES_PAUSED, "agency_moving");
    expect(reads.count).toBe(4);
    await rollBackHeldMove(second, { tell: false });
    advanceClock(PAST_THE_MINUTE);
    const back = await newContact(token);
    expect(back.status).toBe(201);
    expect(await contactOn("DB_EU", back.body.contact.contact_uuid)).toBe(1);
    expect(reads.count).toBe(5);
  });
});

describe("a connected app's gate and the directory", () => {
  it("reads where the grant's agency lives once, keeps it past the minute, and learns a move when told", async () => {
    setClock(Date.now());
    const session = await signIn({ agency: await setupAgencyOn("DB_EU") });
    const app = await connectApp(session, "contacts");
    const reads = await countDirectoryReads(grantGate(workerEnv, app.grantId));
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    expect(reads.count).toBe(1);
    for (let minute = 0; minute < 3; minute++) {
      advanceClock(PAST_THE_MINUTE);
      expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    }
    expect(reads.count).toBe(1);

    const move = await holdMove(session.agencyUuid, "DB", { tell: true });
    expectError(await newContact(app.accessToken), 503, WRITES_PAUSED, "agency_moving");
    expect(reads.count).toBe(2);
    await finishHeldMove(move);
    const created = await newContact(app.accessToken);
    expect(created.status).toBe(201);
    expect(await contactOn("DB", created.body.contact.contact_uuid)).toBe(1);
    expect(reads.count).toBe(3);
  });

  it("finds a switch it was never told of within the row's minute, and reads the directory once after a restart", async () => {
    setClock(Date.now());
    const session = await signIn({ agency: await setupAgencyOn("DB") });
    const app = await connectApp(session, "contacts");
    const stub = grantGate(workerEnv, app.grantId);
    const reads = await countDirectoryReads(stub);
    expect((await newContact(app.accessToken)).status).toBe(201);
    await finishHeldMove(await holdMove(session.agencyUuid, "DB_EU"), { tell: false });
    advanceClock(PAST_THE_MINUTE);
    const moved = await newContact(app.accessToken);
    expect(moved.status).toBe(201);
    expect(await contactOn("DB_EU", moved.body.contact.contact_uuid)).toBe(1);
    expect(reads.count).toBe(2);

    await evictDurableObject(stub);
    const afterRestart = await countDirectoryReads(stub);
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    advanceClock(PAST_THE_MINUTE);
    expect((await api("GET", "/contacts", { token: app.accessToken })).status).toBe(200);
    expect(afterRestart.count).toBe(1);
  });
});

import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "@/env";
import { restoreClock, setClock } from "../helpers/clock";
import { setupAgencyOn } from "../helpers/factories";
import { api } from "../helpers/http";
import { shardDb, TEST_SHARDS } from "../helpers/shards";
import { deliver, runCron } from "../helpers/voice-queue";
import { apiWithEnv, envWith, getCall, recordingQueue, setupVoiceAgency } from "../helpers/voice-factories";
import { createEndpoint, deliverWebhooks, recordingWebhookQueue, stubReceiver, webhookEnv } from "../helpers/webhooks";

const DAY = 86_400_000;
const SHARDS = TEST_SHARDS.map((s) => s.name);

afterEach(() => restoreClock());

describe("the cron across shards", () => {
  it("sends one sweep per registered shard it has a binding for", async () => {
    await env.DB.prepare("INSERT INTO shards (name, region, open, created_at, updated_at) VALUES ('DB_GONE', 'apac', 0, ?1, ?1)")
      .bind(new Date().toISOString())
      .run();
    try {
      const sweeps = await runCron(Date.now());
      expect(sweeps.map((s) => s.shard).sort()).toEqual(SHARDS);
      expect(sweeps.every((s) => s.type === "sweep")).toBe(true);
    } finally {
      await env.DB.prepare("DELETE FROM shards WHERE name = 'DB_GONE'").run();
    }
  });

  it("dispatches a call due on each shard in one cron run", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const agencies = [];
    for (const shard of SHARDS) agencies.push(await setupVoiceAgency({ shard }));
    const dueAt = start + 2 * DAY;
    const calls: string[] = [];
    for (const agency of agencies) {
      const res = await api("POST", "/voice-ai/calls", { token: agency.token, body: { phone: "+14155550123", scheduled_at: new Date(dueAt).toISOString() } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.call.status).toBe("scheduled");
      calls.push(res.body.call.call_uuid as string);
    }
    const { queue, sent } = recordingQueue();
    await runCron(dueAt - 30_000, envWith({ CALL_QUEUE: queue }));
    const dials = sent.filter((m) => calls.includes(m.body.call_id));
    expect(dials).toEqual(agencies.map((a, i) => ({ body: { type: "dial", call_id: calls[i], agency_id: a.agencyUuid }, delaySeconds: 30 })));
    setClock(dueAt);
    await deliver(dials.map((m) => ({ body: m.body })));
    for (const [i, agency] of agencies.entries()) expect((await getCall(agency.token, calls[i]!)).status).toBe("in-progress");
  });

  it("sends again, from each shard, a webhook delivery whose message was lost, and both arrive", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const base = `https://hooks.example.com/shards-${crypto.randomUUID()}/`;
    const failing = { ...(env as unknown as Env), WEBHOOK_QUEUE: recordingWebhookQueue({ failing: true }).queue };
    const deliveries: string[] = [];
    const agencies = [];
    for (const shard of SHARDS) {
      const agency = await setupAgencyOn(shard);
      agencies.push(agency);
      const { endpoint } = await createEndpoint(agency.token, { url: `${base}${shard}` });
      expect((await apiWithEnv(failing, "POST", "/contacts", agency.token, { first_name: "Ada", last_name: shard })).status).toBe(201);
      const event = (await api("GET", "/events?type=contact.created&limit=1", { token: agency.token })).body.events[0];
      deliveries.push(`${event.event_uuid}:${endpoint.webhook_endpoint_uuid}`);
    }
    const { env: cronEnv, sent } = webhookEnv();
    await runCron(start + 121_000, cronEnv);
    expect(sent.filter((m) => deliveries.includes(m.body.delivery_id))).toEqual(
      agencies.map((a, i) => ({ body: { type: "deliver", delivery_id: deliveries[i], agency_id: a.agencyUuid }, delaySeconds: 0 })),
    );
    const receiver = stubReceiver(base);
    setClock(start + 121_000);
    await deliverWebhooks(deliveries);
    expect(receiver.received.map((r) => r.url).sort()).toEqual(SHARDS.map((s) => `${base}${s}`));
  });

  it("prunes events past 30 days and idempotency keys past 24 hours on every shard", async () => {
    const start = Date.parse("2026-11-02T15:00:00.000Z");
    setClock(start);
    const agencies = [];
    for (const shard of SHARDS) {
      const agency = await setupAgencyOn(shard);
      agencies.push({ ...agency, shard });
      const res = await api("POST", "/contacts", { token: agency.token, body: { first_name: "Old", last_name: "Event" }, headers: { "Idempotency-Key": "old" } });
      expect(res.status).toBe(201);
    }
    const count = (shard: string, table: string, agencyUuid: string) =>
      shardDb(shard).prepare(`SELECT count(*) AS n FROM ${table} WHERE agency_id = ?`).bind(agencyUuid).first<number>("n");
    for (const a of agencies) {
      expect(await count(a.shard, "events", a.agencyUuid)).toBe(1);
      expect(await count(a.shard, "idempotency_keys", a.agencyUuid)).toBe(1);
    }
    setClock(start + 2 * DAY);
    await runCron(start + 2 * DAY);
    for (const a of agencies) {
      expect(await count(a.shard, "events", a.agencyUuid)).toBe(1);
      expect(await count(a.shard, "idempotency_keys", a.agencyUuid)).toBe(0);
    }
    setClock(start + 31 * DAY);
    await runCron(start + 31 * DAY);
    for (const a of agencies) expect(await count(a.shard, "events", a.agencyUuid)).toBe(0);
  });
});

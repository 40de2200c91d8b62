import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "@/env";
import { api, expectError } from "../../helpers/http";
import { apiWithEnv } from "../../helpers/voice-factories";
import { createKey, setupAgency } from "../../helpers/factories";
import { restoreClock, setClock } from "../../helpers/clock";
import { deliver, runCron } from "../../helpers/voice-queue";
import { createEndpoint, deliverWebhooks, RECEIVER_URL, recordingWebhookQueue, stubReceiver, uniqueReceiver, webhookEnv } from "../../helpers/webhooks";
import { dbOf } from "../../helpers/shards";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const NOT_FOUND = "Webhook endpoint not found";
const ENDPOINT_KEYS = ["webhook_endpoint_uuid", "url", "events", "status", "disabled_reason", "description", "created_at", "updated_at"].sort();
const HOUR = 3_600_000;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  restoreClock();
});

/** A contact created with a recording webhook queue: returns it, its event id and the messages published. */
async function contactWithEvent(token: string, customEnv: Env, name = "Ada") {
  const res = await apiWithEnv(customEnv, "POST", "/contacts", token, { first_name: name, last_name: "Lovelace" });
  expect(res.status).toBe(201);
  const events = await api("GET", "/events?type=contact.created&limit=1", { token });
  return { contact: res.body.contact, eventId: events.body.events[0].event_uuid as string };
}

const attemptsOf = async (token: string, endpointUuid: string) =>
  (await api("GET", `/webhook-endpoints/${endpointUuid}/deliveries`, { token })).body.deliveries as Record<string, any>[];

describe("webhook endpoints", () => {
  it("creates an endpoint with a whsec_ secret shown once, lists, reads, updates and deletes it", async () => {
    const { token } = await setupAgency();
    const created = await api("POST", "/webhook-endpoints", {
      token,
      body: { url: RECEIVER_URL, events: ["contact.created", "appointment.booked"], description: " CRM sync " },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const endpoint = created.body.webhook_endpoint;
    expect(Object.keys(endpoint).sort()).toEqual(ENDPOINT_KEYS);
    expect(endpoint).toMatchObject({ url: RECEIVER_URL, events: ["contact.created", "appointment.booked"], status: "enabled", disabled_reason: null, description: "CRM sync" });
    expect(endpoint.created_at).toMatch(ISO);

    const path = `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`;
    const read = await api("GET", path.toUpperCase().replace("/WEBHOOK-ENDPOINTS/", "/webhook-endpoints/"), { token });
    expect(read.body).toEqual({ success: true, webhook_endpoint: endpoint });
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
    const list = await api("GET", "/webhook-endpoints", { token });
    expect(list.body).toEqual({ success: true, webhook_endpoints: [endpoint], pagination: { page: 1, limit: 20, total: 1, next_cursor: null } });

    const patched = await api("PATCH", path, { token, body: { events: ["*"], description: null, status: "disabled" } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook_endpoint).toMatchObject({ events: ["*"], description: null, status: "disabled" });
    const deleted = await api("DELETE", path, { token });
    expect(deleted.body.webhook_endpoint.webhook_endpoint_uuid).toBe(endpoint.webhook_endpoint_uuid);
    expectError(await api("GET", path, { token }), 404, NOT_FOUND, "not_found");
    expectError(await api("DELETE", path, { token }), 404, NOT_FOUND);
  });

  it.each([
    ["plain http", "http://hooks.example.com/x", "url must use https"],
    ["credentials in the URL", "https://user:pass@hooks.example.com/x", "url must not contain a username or password"],
    ["localhost", "https://localhost/x", "url must not point to localhost"],
    ["a .localhost name", "https://api.localhost/x", "url must not point to localhost"],
    ["a loopback IP", "https://127.0.0.1/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["a decimal loopback IP", "https://2130706433/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["a private IP", "https://10.1.2.3/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["a 192.168 IP", "https://192.168.0.10:8443/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["a link-local IP (cloud metadata)", "https://169.254.169.254/latest", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["a carrier-grade NAT IP", "https://100.64.0.1/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["the IPv6 loopback", "https://[::1]/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["an IPv6 unique-local address", "https://[fd00::1]/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["an IPv4-mapped private address", "https://[::ffff:10.0.0.1]/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["an IPv4-compatible loopback address", "https://[::7f00:1]/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["an IPv4-compatible link-local address", "https://[::a9fe:a9fe]/x", "url must not point to a private, loopback, link-local or otherwise reserved IP address"],
    ["localhost with trailing dots", "https://localhost../x", "url must not point to localhost"],
    ["a .internal name with trailing dots", "https://db.internal../x", "url must not point to a host under .local or .internal"],
    ["a name with an empty label", "https://hooks..example.com/x", "url must be an absolute URL, e.g. https://example.com/webhooks"],
    ["a .local name", "https://printer.local/x", "url must not point to a host under .local or .internal"],
    ["a .internal name", "https://db.corp.internal/x", "url must not point to a host under .local or .internal"],
    ["a relative URL", "/hooks", "url must be an absolute URL, e.g. https://example.com/webhooks"],
    ["another scheme", "ftp://hooks.example.com/x", "url must be an absolute URL, e.g. https://example.com/webhooks"],
  ])("refuses %s with 400 naming the rule, and creates nothing", async (_name, url, message) => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/webhook-endpoints", { token, body: { url, events: ["*"] } }), 400, message, "validation_error");
    expect((await api("GET", "/webhook-endpoints", { token })).body.pagination.total).toBe(0);
  });

  it("accepts public https URLs, and loopback http only when ALLOW_LOOPBACK_WEBHOOKS is true", async () => {
    const { token } = await setupAgency();
    for (const url of ["https://hooks.example.com/x", "https://93.184.216.34:8443/x", "https://[2606:4700::1111]/x"]) {
      expect((await api("POST", "/webhook-endpoints", { token, body: { url, events: ["*"] } })).status, url).toBe(201);
    }
    const loopback = { url: "http://127.0.0.1:9000/hooks", events: ["*"] };
    expect(env.ALLOW_LOOPBACK_WEBHOOKS).toBe("false");
    expectError(await api("POST", "/webhook-endpoints", { token, body: loopback }), 400, "url must use https");
    const local = { ...(env as unknown as Env), ALLOW_LOOPBACK_WEBHOOKS: "true" };
    expect((await apiWithEnv(local, "POST", "/webhook-endpoints", token, loopback)).status).toBe(201);
    expect((await apiWithEnv(local, "POST", "/webhook-endpoints", token, { ...loopback, url: "http://localhost:9000/" })).status).toBe(201);
    const noPort = await apiWithEnv(local, "POST", "/webhook-endpoints", token, { ...loopback, url: "http://127.0.0.1/hooks" });
    expect(noPort.body.error).toBe("url on localhost must name a port, e.g. http://127.0.0.1:9000/webhooks");
    // Other private addresses stay refused even then.
    expect((await apiWithEnv(local, "POST", "/webhook-endpoints", token, { ...loopback, url: "http://10.0.0.1:9000/" })).status).toBe(400);
    // PATCH holds the URL to the same rules.
    const { endpoint } = await createEndpoint(token);
    expectError(await api("PATCH", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token, body: { url: "https://10.0.0.1/" } }), 400, /private/);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no events", { url: RECEIVER_URL }, "events is required"],
    ["an empty events list", { url: RECEIVER_URL, events: [] }, 'events must be a list of event types (see the Events tag) or ["*"] for all of them'],
    ["an unknown event type", { url: RECEIVER_URL, events: ["contact.exploded"] }, 'events must be a list of event types (see the Events tag) or ["*"] for all of them'],
    ["* with other types", { url: RECEIVER_URL, events: ["*", "contact.created"] }, 'events must be a list of event types (see the Events tag) or ["*"] for all of them'],
    ["a repeated type", { url: RECEIVER_URL, events: ["contact.created", "contact.created"] }, 'events must be a list of event types (see the Events tag) or ["*"] for all of them'],
    ["ping as a subscription", { url: RECEIVER_URL, events: ["ping"] }, 'events must be a list of event types (see the Events tag) or ["*"] for all of them'],
    ["no url", { events: ["*"] }, "url is required"],
    ["an unknown field", { url: RECEIVER_URL, events: ["*"], secret: "x" }, "Unknown field: secret"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { token } = await setupAgency();
    expectError(await api("POST", "/webhook-endpoints", { token, body }), 400, message, "validation_error");
  });

  it("allows 16 endpoints per agency: of two concurrent creates for the 16th, exactly one wins", async () => {
    const { token } = await setupAgency();
    for (let i = 0; i < 15; i++) await createEndpoint(token);
    const results = await Promise.all([0, 1].map((i) => api("POST", "/webhook-endpoints", { token, body: { url: `${RECEIVER_URL}/x${i}`, events: ["*"] } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expectError(results.find((r) => r.status === 409)!, 409, "An agency can have at most 16 webhook endpoints; delete one first", "conflict");
    expect((await api("GET", "/webhook-endpoints", { token })).body.pagination.total).toBe(16);
  });

  it("is 404 on every route for another agency's endpoint and a random uuid, and changes nothing", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const { endpoint } = await createEndpoint(other.token);
    for (const uuid of [endpoint.webhook_endpoint_uuid, RANDOM_UUID]) {
      const path = `/webhook-endpoints/${uuid}`;
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["PATCH", "", { status: "disabled" }],
        ["DELETE", "", undefined],
        ["POST", "/rotate-secret", undefined],
        ["POST", "/test", undefined],
        ["GET", "/deliveries", undefined],
      ] as const) {
        expectError(await api(method, `${path}${suffix}`, { token, body }), 404, NOT_FOUND, "not_found");
      }
    }
    expect((await api("GET", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token: other.token })).body.webhook_endpoint).toEqual(endpoint);
  });

  it("accepts a key with only the webhooks scope", async () => {
    const { agencyUuid } = await setupAgency();
    const { token: only } = await createKey(agencyUuid, { scopes: ["webhooks"] });
    expect((await api("GET", "/webhook-endpoints", { token: only })).status).toBe(200);
  });
});

describe("webhook delivery", () => {
  it("POSTs the event with the three Standard Webhooks headers; the signature verifies, a tampered body does not", async () => {
    const { agencyUuid, token } = await setupAgency();
    const { endpoint, secret } = await createEndpoint(token, { events: ["contact.created"] });
    const { env: customEnv, sent } = webhookEnv();
    const { contact, eventId } = await contactWithEvent(token, customEnv);
    const deliveryId = `${eventId}:${endpoint.webhook_endpoint_uuid}`;
    // Published after the response: one message for the one subscribed endpoint.
    expect(sent).toEqual([{ body: { type: "deliver", delivery_id: deliveryId, agency_id: agencyUuid }, delaySeconds: 0 }]);

    const receiver = stubReceiver(endpoint.url);
    await deliverWebhooks([deliveryId]);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!).toMatchObject({ url: endpoint.url, method: "POST" });
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["webhook-id"]).toBe(eventId);
    expect(Number(request!.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -1);
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = JSON.parse(request!.body);
    expect(payload).toEqual((await api("GET", `/events/${eventId}`, { token })).body.event);
    expect(payload).toMatchObject({ event_uuid: eventId, type: "contact.created", data: { object: contact } });

    const verifier = new Webhook(secret);
    expect(verifier.verify(request!.body, request!.headers)).toEqual(payload);
    expect(() => verifier.verify(request!.body.replace("Ada", "Eve"), request!.headers)).toThrow();
    expect(() => new Webhook(`whsec_${btoa("another secret of 32 bytes!!!!!")}`).verify(request!.body, request!.headers)).toThrow();

    expect(await attemptsOf(token, endpoint.webhook_endpoint_uuid)).toEqual([
      {
        event_uuid: eventId,
        type: "contact.created",
        attempt: 1,
        status_code: 200,
        error: null,
        duration_ms: expect.any(Number),
        delivered: true,
        attempted_at: expect.stringMatching(ISO),
        next_attempt_at: null,
      },
    ]);
  });

  it("delivers only to enabled endpoints subscribed to the type", async () => {
    const { token } = await setupAgency();
    const all = await createEndpoint(token);
    await createEndpoint(token, { events: ["call.completed"] });
    const off = await createEndpoint(token);
    await api("PATCH", `/webhook-endpoints/${off.endpoint.webhook_endpoint_uuid}`, { token, body: { status: "disabled" } });
    const { env: customEnv, sent } = webhookEnv();
    const { eventId } = await contactWithEvent(token, customEnv);
    expect(sent.map((m) => m.body.delivery_id)).toEqual([`${eventId}:${all.endpoint.webhook_endpoint_uuid}`]);
  });

  it("retries a receiver answering 500 on the schedule (5 s, then 5 min), records every attempt, then delivers once", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { agencyUuid, token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const { eventId } = await contactWithEvent(token, customEnv);
    const deliveryId = `${eventId}:${endpoint.webhook_endpoint_uuid}`;
    const receiver = stubReceiver(endpoint.url, [500, 503]);
    const { env: retryEnv, sent: retried } = webhookEnv();

    await deliverWebhooks([deliveryId], { env: retryEnv });
    expect(retried).toEqual([{ body: { type: "deliver", delivery_id: deliveryId, agency_id: agencyUuid }, delaySeconds: 5 }]);
    // A message arriving early (before the retry is due) does nothing.
    await deliverWebhooks([deliveryId], { env: retryEnv });
    expect(receiver.received).toHaveLength(1);

    setClock(start + 5_000);
    await deliverWebhooks([deliveryId], { env: retryEnv });
    expect(retried.at(-1)).toEqual({ body: { type: "deliver", delivery_id: deliveryId, agency_id: agencyUuid }, delaySeconds: 300 });
    setClock(start + 305_000);
    await deliverWebhooks([deliveryId], { env: retryEnv });
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    expect(receiver.received.map((r) => Number(r.headers["webhook-timestamp"]))).toEqual([start / 1000, start / 1000 + 5, start / 1000 + 305]);

    // Redelivered messages, even at once, do not deliver again.
    await Promise.all([deliverWebhooks([deliveryId], { env: retryEnv }), deliverWebhooks([deliveryId], { env: retryEnv })]);
    expect(receiver.received).toHaveLength(3);
    const attempts = await attemptsOf(token, endpoint.webhook_endpoint_uuid);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.delivered, a.error, a.next_attempt_at])).toEqual([
      [3, 200, true, null, null],
      [2, 503, false, "HTTP 503", new Date(start + 305_000).toISOString()],
      [1, 500, false, "HTTP 500", new Date(start + 5_000).toISOString()],
    ]);
  });

  it("never follows a redirect, and counts a timeout and a network error as failed attempts", async () => {
    const { token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const { env: retryEnv, sent: retried } = webhookEnv();
    const receiver = stubReceiver(endpoint.url, [302, "network", "hang"]);
    const ids: string[] = [];
    for (const name of ["A", "B", "C"]) ids.push(`${(await contactWithEvent(token, customEnv, name)).eventId}:${endpoint.webhook_endpoint_uuid}`);
    for (const id of ids) await deliverWebhooks([id], { env: retryEnv });
    expect(receiver.received).toHaveLength(3);
    const errors = (await attemptsOf(token, endpoint.webhook_endpoint_uuid)).map((a) => [a.status_code, a.delivered, a.error]).reverse();
    expect(errors[0]).toEqual([302, false, "redirect 302 not followed"]);
    expect(errors[1]).toEqual([null, false, "network error: fetch failed"]);
    expect(errors[2]).toEqual([null, false, "no response within 10 s"]);
    expect(retried.map((m) => m.delaySeconds)).toEqual([5, 5, 5]);
  }, 30_000);

  it("gives up after the last retry, and disables an endpoint whose attempts have all failed for 5 days", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const retryEnv = webhookEnv().env;
    const { eventId } = await contactWithEvent(token, customEnv);
    const deliveryId = `${eventId}:${endpoint.webhook_endpoint_uuid}`;
    stubReceiver(endpoint.url, Array(9).fill(500));
    let at = start;
    for (const wait of [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]) {
      at += wait * 1000;
      setClock(at);
      await deliverWebhooks([deliveryId], { env: retryEnv });
    }
    const attempts = await attemptsOf(token, endpoint.webhook_endpoint_uuid);
    expect(attempts).toHaveLength(8);
    expect(attempts[0]).toMatchObject({ attempt: 8, delivered: false, next_attempt_at: null });
    // Given up: no more attempts, whatever arrives.
    setClock(at + 36_000_000);
    await deliverWebhooks([deliveryId], { env: retryEnv });
    expect(await attemptsOf(token, endpoint.webhook_endpoint_uuid)).toHaveLength(8);
    // About 27.6 hours of failures: still enabled.
    expect((await api("GET", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token })).body.webhook_endpoint.status).toBe("enabled");

    // Five days after the first failure, the next failed attempt disables it.
    setClock(start + 5 * 24 * HOUR);
    const later = await contactWithEvent(token, customEnv, "Grace");
    await deliverWebhooks([`${later.eventId}:${endpoint.webhook_endpoint_uuid}`], { env: retryEnv });
    expect((await api("GET", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token })).body.webhook_endpoint).toMatchObject({
      status: "disabled",
      disabled_reason: "failing",
    });
    // Enabled again by the partner, it starts afresh.
    const enabled = await api("PATCH", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token, body: { status: "enabled" } });
    expect(enabled.body.webhook_endpoint).toMatchObject({ status: "enabled", disabled_reason: null });
  });

  it("resets the failing run on a success", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const retryEnv = webhookEnv().env;
    stubReceiver(endpoint.url, [500, 200, 500]);
    const first = await contactWithEvent(token, customEnv, "A");
    await deliverWebhooks([`${first.eventId}:${endpoint.webhook_endpoint_uuid}`], { env: retryEnv });
    setClock(start + 3 * 24 * HOUR);
    const second = await contactWithEvent(token, customEnv, "B");
    await deliverWebhooks([`${second.eventId}:${endpoint.webhook_endpoint_uuid}`], { env: retryEnv });
    setClock(start + 6 * 24 * HOUR);
    const third = await contactWithEvent(token, customEnv, "C");
    await deliverWebhooks([`${third.eventId}:${endpoint.webhook_endpoint_uuid}`], { env: retryEnv });
    // Failing since day 6 only, not day 0: still enabled.
    expect((await api("GET", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}`, { token })).body.webhook_endpoint.status).toBe("enabled");
  });

  it("signs with both secrets for 24 hours after a rotation, each verifying with its own secret", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { token } = await setupAgency();
    const { endpoint, secret: oldSecret } = await createEndpoint(token);
    const rotated = await api("POST", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.previous_secret_expires_at).toBe(new Date(start + 24 * HOUR).toISOString());
    const { env: customEnv } = webhookEnv();
    const receiver = stubReceiver(endpoint.url);

    const during = await contactWithEvent(token, customEnv, "A");
    await deliverWebhooks([`${during.eventId}:${endpoint.webhook_endpoint_uuid}`]);
    const signatures = receiver.received[0]!.headers["webhook-signature"]!.split(" ");
    expect(signatures).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toMatchObject({ event_uuid: during.eventId });
    }

    setClock(start + 24 * HOUR + 1_000);
    const after = await contactWithEvent(token, customEnv, "B");
    await deliverWebhooks([`${after.eventId}:${endpoint.webhook_endpoint_uuid}`]);
    const request = receiver.received[1]!;
    expect(request.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(new Webhook(newSecret).verify(request.body, request.headers)).toMatchObject({ event_uuid: after.eventId });
    expect(() => new Webhook(oldSecret).verify(request.body, request.headers)).toThrow();
  });

  it("sends a ping to the tested endpoint only, at once, whatever it subscribes to", async () => {
    const { agencyUuid, token } = await setupAgency();
    const { endpoint, secret } = await createEndpoint(token, { events: ["call.completed"] });
    await createEndpoint(token);
    const { env: customEnv, sent } = webhookEnv();
    const res = await apiWithEnv(customEnv, "POST", `/webhook-endpoints/${endpoint.webhook_endpoint_uuid}/test`, token);
    expect(res.status).toBe(202);
    const eventId = res.body.event_uuid as string;
    expect(sent).toEqual([{ body: { type: "deliver", delivery_id: `${eventId}:${endpoint.webhook_endpoint_uuid}`, agency_id: agencyUuid }, delaySeconds: 0 }]);
    const receiver = stubReceiver(endpoint.url);
    await deliverWebhooks([`${eventId}:${endpoint.webhook_endpoint_uuid}`]);
    const payload = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers);
    expect(payload).toEqual({
      event_uuid: eventId,
      type: "ping",
      created_at: expect.stringMatching(ISO),
      data: { object: { webhook_endpoint_uuid: endpoint.webhook_endpoint_uuid, message: "This is a test event sent from the Partner API." } },
    });
    // A ping is not redelivered (it would go to every endpoint): send another test instead.
    expectError(
      await api("POST", `/events/${eventId}/redeliver`, { token }),
      409,
      "A ping is a test send: send another with POST /webhook-endpoints/{webhook_endpoint_uuid}/test",
      "conflict",
    );
  });

  it("redelivers an event to every enabled subscribed endpoint, with the same webhook-id", async () => {
    const { token } = await setupAgency();
    const base = uniqueReceiver();
    const first = await createEndpoint(token, { url: `${base}/a` });
    const { env: customEnv, sent } = webhookEnv();
    const { eventId } = await contactWithEvent(token, customEnv);
    const second = await createEndpoint(token, { url: `${base}/b`, events: ["contact.created"] });
    await createEndpoint(token, { url: `${base}/c`, events: ["field.created"] });
    const receiver = stubReceiver(base);
    await deliverWebhooks(sent.map((m) => m.body.delivery_id));

    const res = await apiWithEnv(customEnv, "POST", `/events/${eventId}/redeliver`, token);
    expect(res.status).toBe(202);
    expect(res.body.webhook_endpoint_uuids.sort()).toEqual([first.endpoint.webhook_endpoint_uuid, second.endpoint.webhook_endpoint_uuid].sort());
    const redeliveries = sent.slice(1).map((m) => m.body.delivery_id);
    expect(redeliveries).toHaveLength(2);
    await deliverWebhooks(redeliveries);
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId, eventId]);
    expect(receiver.received.map((r) => r.url).sort()).toEqual([`${base}/a`, `${base}/a`, `${base}/b`]);

    const other = await setupAgency();
    expectError(await api("POST", `/events/${eventId}/redeliver`, { token: other.token }), 404, "Event not found", "not_found");
    expectError(await api("POST", `/events/${RANDOM_UUID}/redeliver`, { token }), 404, "Event not found");
  });

  it("runs at most 6 attempts of a batch at once (a Worker's open connections), and delivers them all", async () => {
    const { token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv, sent } = webhookEnv();
    for (let i = 0; i < 14; i++) await contactWithEvent(token, customEnv, `C${i}`);
    const receiver = stubReceiver(endpoint.url, [], { delayMs: 50 });
    await deliverWebhooks(sent.map((m) => m.body.delivery_id));
    expect(receiver.received).toHaveLength(14);
    expect(receiver.concurrency.max).toBe(6);
  });

  it("leaves a dead-lettered delivery to the cron while attempts remain, and gives it up when none do", async () => {
    const { agencyUuid, token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const first = await contactWithEvent(token, customEnv, "A");
    const second = await contactWithEvent(token, customEnv, "B");
    const a = `${first.eventId}:${endpoint.webhook_endpoint_uuid}`;
    const b = `${second.eventId}:${endpoint.webhook_endpoint_uuid}`;
    const db = await dbOf(agencyUuid);
    await db.prepare("UPDATE webhook_deliveries SET attempts = 8 WHERE id = ?").bind(b).run();
    await deliver([a, b].map((id) => ({ body: { type: "deliver", delivery_id: id } })), { queue: "webhook-deliveries-dlq" });
    const status = async (id: string) => ((await db.prepare("SELECT status FROM webhook_deliveries WHERE id = ?").bind(id).first()) as { status: string }).status;
    expect([await status(a), await status(b)]).toEqual(["pending", "failed"]);
  });

  it("drops pending deliveries of an endpoint disabled or deleted before they fall due", async () => {
    const { token } = await setupAgency();
    const base = uniqueReceiver();
    const off = await createEndpoint(token, { url: `${base}/off` });
    const gone = await createEndpoint(token, { url: `${base}/gone` });
    const { env: customEnv, sent } = webhookEnv();
    await contactWithEvent(token, customEnv);
    await api("PATCH", `/webhook-endpoints/${off.endpoint.webhook_endpoint_uuid}`, { token, body: { status: "disabled" } });
    await api("DELETE", `/webhook-endpoints/${gone.endpoint.webhook_endpoint_uuid}`, { token });
    const receiver = stubReceiver(base);
    await deliverWebhooks(sent.map((m) => m.body.delivery_id));
    expect(receiver.received).toEqual([]);
    expect(await attemptsOf(token, off.endpoint.webhook_endpoint_uuid)).toEqual([]);
  });
});

describe("the webhook cron", () => {
  it("sends again deliveries whose message was lost, once, after two minutes", async () => {
    const start = Date.parse("2026-12-02T15:00:00.000Z");
    setClock(start);
    const { agencyUuid, token } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    // The publish after the response fails: the delivery is stored, its message never sent.
    const failing = { ...(env as unknown as Env), WEBHOOK_QUEUE: recordingWebhookQueue({ failing: true }).queue };
    const { eventId } = await contactWithEvent(token, failing);
    const deliveryId = `${eventId}:${endpoint.webhook_endpoint_uuid}`;
    const { env: cronEnv, sent: cronSent } = webhookEnv();
    const mine = () => cronSent.filter((m) => m.body.delivery_id === deliveryId);

    await runCron(start + 60_000, cronEnv);
    expect(mine()).toEqual([]);
    await runCron(start + 121_000, cronEnv);
    expect(mine()).toEqual([{ body: { type: "deliver", delivery_id: deliveryId, agency_id: agencyUuid }, delaySeconds: 0 }]);
    await runCron(start + 181_000, cronEnv);
    expect(mine()).toHaveLength(1);
    const receiver = stubReceiver(endpoint.url);
    setClock(start + 121_000);
    await deliverWebhooks([deliveryId]);
    expect(receiver.received).toHaveLength(1);
    await runCron(start + 600_000, cronEnv);
    expect(mine()).toHaveLength(1);
  });

  it("deletes events older than 30 days with their deliveries and attempts", async () => {
    const start = Date.parse("2026-11-02T15:00:00.000Z");
    setClock(start);
    const { token, agencyUuid } = await setupAgency();
    const { endpoint } = await createEndpoint(token);
    const { env: customEnv } = webhookEnv();
    const old = await contactWithEvent(token, customEnv, "Old");
    stubReceiver(endpoint.url);
    await deliverWebhooks([`${old.eventId}:${endpoint.webhook_endpoint_uuid}`]);
    setClock(start + 20 * 24 * HOUR);
    const recent = await contactWithEvent(token, customEnv, "Recent");
    const { token: reader } = await createKey(agencyUuid, { scopes: ["webhooks"] });
    // Past 30 days an event is gone for the API at once, before the cron deletes it.
    setClock(start + 30 * 24 * HOUR + 1_000);
    expectError(await api("GET", `/events/${old.eventId}`, { token: reader }), 404, "Event not found");
    expect((await api("GET", "/events?type=contact.created", { token: reader })).body.events.map((e: any) => e.event_uuid)).toEqual([recent.eventId]);
    await runCron(start + 30 * 24 * HOUR + 60_000, webhookEnv().env);
    const count = async (table: string) =>
      ((await (await dbOf(agencyUuid)).prepare(`SELECT count(*) AS n FROM ${table} WHERE agency_id = ?`).bind(agencyUuid).first()) as { n: number }).n;
    expect(await count("events")).toBe(1);
    expect((await api("GET", `/events/${recent.eventId}`, { token: reader })).status).toBe(200);
    expect(await count("webhook_attempts")).toBe(0);
    expect(await count("webhook_deliveries")).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { US_STATE_CODES } from "@/routes/lead-orders/lead-orders.schemas";
import { admin, api, call, expectError } from "../../helpers/http";
import { setupAgency } from "../../helpers/factories";
import { createLeadOrder } from "../../helpers/lead-order-factories";
import { expectScopeRequired } from "../../helpers/route-checks";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const ORDER_KEYS = [
  "order_uuid",
  "name",
  "status",
  "daily_max",
  "states",
  "delivered_count",
  "created_at",
  "updated_at",
  "canceled_at",
].sort();
const DAILY_MAX_MESSAGE = "daily_max must be a whole number from 1 to 10000";
const CANCELED_MESSAGE = "Lead order is canceled and can no longer be changed";
const ALREADY_CANCELED_MESSAGE = "Lead order is already canceled";
const NOT_FOUND_MESSAGE = "Lead order not found";

const getOrder = (token: string, uuid: string) => api("GET", `/lead-orders/${uuid}`, { token });
const patchOrder = (token: string, uuid: string, body: unknown) => api("PATCH", `/lead-orders/${uuid}`, { token, body });
const pauseOrder = (token: string, uuid: string, paused: unknown) => api("POST", `/lead-orders/${uuid}/pause`, { token, body: { paused } });
const cancelOrder = (token: string, uuid: string) => api("POST", `/lead-orders/${uuid}/cancel`, { token });
const uuidsOf = (res: { body: any }) => res.body.lead_orders.map((o: any) => o.order_uuid);

/** Reads the order back with its own agency's key and checks nothing changed. */
async function expectUnchanged(token: string, order: Record<string, unknown>) {
  const read = await getOrder(token, order.order_uuid as string);
  expect(read.status).toBe(200);
  expect(read.body.lead_order).toEqual(order);
}

async function canceledOrder(agencyUuid: string, token: string) {
  const order = await createLeadOrder(agencyUuid);
  const res = await cancelOrder(token, order.order_uuid);
  expect(res.status).toBe(200);
  return res.body.lead_order as Record<string, any>;
}

describe("POST /admin/v1/agencies/{agency_uuid}/lead-orders (operator)", () => {
  it("creates an active order with no deliveries, normalising state codes", async () => {
    const { agencyUuid, token } = await setupAgency();
    const res = await admin("POST", `/agencies/${agencyUuid}/lead-orders`, { name: " Gulf coast ", daily_max: 40, states: ["tx", " fl", "LA"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      lead_order: {
        order_uuid: expect.stringMatching(UUID),
        name: "Gulf coast",
        status: "active",
        daily_max: 40,
        states: ["TX", "FL", "LA"],
        delivered_count: 0,
        created_at: expect.stringMatching(ISO),
        updated_at: res.body.lead_order.created_at,
        canceled_at: null,
      },
    });
    expect((await getOrder(token, res.body.lead_order.order_uuid)).body.lead_order).toEqual(res.body.lead_order);
  });

  it.each([
    ["daily_max 0", { name: "x", daily_max: 0, states: ["TX"] }, DAILY_MAX_MESSAGE],
    ["a territory", { name: "x", daily_max: 5, states: ["PR"] }, /unknown US state codes: PR/],
    ["no states", { name: "x", daily_max: 5 }, "states is required"],
    ["no name", { daily_max: 5, states: ["TX"] }, "name is required"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const { agencyUuid, token } = await setupAgency();
    expectError(await admin("POST", `/agencies/${agencyUuid}/lead-orders`, body), 400, message, "validation_error");
    expect((await api("GET", "/lead-orders", { token })).body.pagination.total).toBe(0);
  });

  it("answers 404 for an unknown agency and 401 without the operator token", async () => {
    const body = { name: "x", daily_max: 5, states: ["TX"] };
    expectError(await admin("POST", `/agencies/${RANDOM_UUID}/lead-orders`, body), 404, "Agency not found");
    const { agencyUuid } = await setupAgency();
    const res = await call("POST", `/admin/v1/agencies/${agencyUuid}/lead-orders`, { body, token: "wrong" });
    expectError(res, 401, "Invalid or missing token", "invalid_token");
  });
});

describe("GET /lead-orders", () => {
  it("lists orders newest first with exact fields and pagination totals", async () => {
    const { agencyUuid, token } = await setupAgency();
    const a = await createLeadOrder(agencyUuid, { name: "A" });
    const b = await createLeadOrder(agencyUuid, { name: "B" });
    const c = await createLeadOrder(agencyUuid, { name: "C" });

    const res = await api("GET", "/lead-orders", { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(uuidsOf(res)).toEqual([c.order_uuid, b.order_uuid, a.order_uuid]);
    expect(res.body.lead_orders[0]).toEqual(c);
    expect(Object.keys(res.body.lead_orders[0]).sort()).toEqual(ORDER_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await api("GET", "/lead-orders?page=2&limit=2", { token });
    expect(uuidsOf(page2)).toEqual([a.order_uuid]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("filters by status", async () => {
    const { agencyUuid, token } = await setupAgency();
    const active = await createLeadOrder(agencyUuid);
    const paused = await createLeadOrder(agencyUuid);
    const canceled = await createLeadOrder(agencyUuid);
    expect((await pauseOrder(token, paused.order_uuid, true)).status).toBe(200);
    expect((await cancelOrder(token, canceled.order_uuid)).status).toBe(200);

    for (const [status, expected] of [
      ["active", [active.order_uuid]],
      ["paused", [paused.order_uuid]],
      ["canceled", [canceled.order_uuid]],
    ] as const) {
      const res = await api("GET", `/lead-orders?status=${status}`, { token });
      expect(uuidsOf(res), status).toEqual(expected);
      expect(res.body.pagination.total).toBe(1);
      expect(res.body.lead_orders[0].status).toBe(status);
    }
    expect((await api("GET", "/lead-orders", { token })).body.pagination.total).toBe(3);
  });

  it("never lists another agency's orders", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createLeadOrder(a.agencyUuid);
    const res = await api("GET", "/lead-orders", { token: b.token });
    expect(res.body.lead_orders).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid query parameters with a message naming them", async () => {
    const { token } = await setupAgency();
    expectError(await api("GET", "/lead-orders?status=done", { token }), 400, "status must be one of: active, paused, canceled", "validation_error");
    expectError(await api("GET", "/lead-orders?limit=101", { token }), 400, "limit must be a whole number from 1 to 100", "validation_error");
  });
});

describe("GET /lead-orders/{order_uuid}", () => {
  it("returns the order, also for an upper-case uuid", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid, { states: ["NY", "NJ"] });
    const res = await getOrder(token, order.order_uuid.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, lead_order: order });
  });

  it("rejects a malformed order_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await getOrder(token, "not-a-uuid"), 400, "order_uuid must be a UUID", "validation_error");
  });

  it("answers 404 for a random uuid and for another agency's order", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const order = await createLeadOrder(owner.agencyUuid);
    expectError(await getOrder(owner.token, RANDOM_UUID), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await getOrder(other.token, order.order_uuid), 404, NOT_FOUND_MESSAGE, "not_found");
    await expectUnchanged(owner.token, order);
  });
});

describe("PATCH /lead-orders/{order_uuid}", () => {
  it("changes only the fields sent and keeps the status", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid, { name: "Texas", daily_max: 10, states: ["TX"] });

    const res = await patchOrder(token, order.order_uuid, { daily_max: 10000, states: ["tx", "ok", "DC"] });
    expect(res.status).toBe(200);
    const patched = res.body.lead_order;
    expect(Object.keys(patched).sort()).toEqual(ORDER_KEYS);
    expect(patched).toMatchObject({ name: "Texas", status: "active", daily_max: 10000, states: ["TX", "OK", "DC"], delivered_count: 0 });
    expect(patched.created_at).toBe(order.created_at);
    expect(patched.updated_at >= order.updated_at).toBe(true);
    await expectUnchanged(token, patched);

    const renamed = await patchOrder(token, order.order_uuid, { name: "  Texas and Oklahoma " });
    expect(renamed.body.lead_order).toMatchObject({ name: "Texas and Oklahoma", daily_max: 10000, states: ["TX", "OK", "DC"] });
  });

  it("accepts every state and DC at once", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const res = await patchOrder(token, order.order_uuid, { states: [...US_STATE_CODES] });
    expect(res.status).toBe(200);
    expect(res.body.lead_order.states).toEqual([...US_STATE_CODES]);
  });

  it("patches a paused order and leaves it paused", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    expect((await pauseOrder(token, order.order_uuid, true)).status).toBe(200);
    const res = await patchOrder(token, order.order_uuid, { daily_max: 1 });
    expect(res.status).toBe(200);
    expect(res.body.lead_order).toMatchObject({ status: "paused", daily_max: 1 });
  });

  it("answers an empty body with the order unchanged", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const res = await patchOrder(token, order.order_uuid, {});
    expect(res.status).toBe(200);
    expect(res.body.lead_order).toEqual(order);
  });

  it.each([
    ["daily_max 0", { daily_max: 0 }, DAILY_MAX_MESSAGE],
    ["a negative daily_max", { daily_max: -5 }, DAILY_MAX_MESSAGE],
    ["daily_max above 10000", { daily_max: 10001 }, DAILY_MAX_MESSAGE],
    ["a fractional daily_max", { daily_max: 2.5 }, DAILY_MAX_MESSAGE],
    ["daily_max as a string", { daily_max: "5" }, DAILY_MAX_MESSAGE],
    ["a null daily_max", { daily_max: null }, DAILY_MAX_MESSAGE],
    ["an invalid state code", { states: ["TX", "XX"] }, "states contains unknown US state codes: XX (use the 50 states and DC, e.g. TX)"],
    ["a territory (Puerto Rico)", { states: ["PR"] }, "states contains unknown US state codes: PR (use the 50 states and DC, e.g. TX)"],
    ["a full state name", { states: ["Texas"] }, /unknown US state codes: TEXAS/],
    ["an empty states list", { states: [] }, "states must list at least one state"],
    ["a repeated state, in any case", { states: ["TX", "tx"] }, "states must not repeat: TX"],
    ["more states than there are", { states: [...US_STATE_CODES, "TX"] }, "states may list at most 51 states (the 50 states and DC)"],
    ["states that are not an array", { states: "TX" }, "states must be an array of two-letter US state codes"],
    ["a state that is not a string", { states: ["TX", 48] }, "states.1: must be a two-letter US state code (a string)"],
    ["a blank name", { name: "   " }, "name must be 1 to 100 characters"],
    ["a 101-character name", { name: "n".repeat(101) }, "name must be 1 to 100 characters"],
    ["an unknown field", { status: "paused" }, "Unknown field: status"],
    ["delivered_count", { delivered_count: 0 }, "Unknown field: delivered_count"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    expectError(await patchOrder(token, order.order_uuid, body), 400, message, "validation_error");
    await expectUnchanged(token, order);
  });

  it("rejects a body that is not JSON", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const res = await api("PATCH", `/lead-orders/${order.order_uuid}`, { token, rawBody: "{", headers: { "Content-Type": "application/json" } });
    expectError(res, 400, undefined, "validation_error");
  });

  it("answers 409 for a canceled order and changes nothing, even with an empty body", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await canceledOrder(agencyUuid, token);
    expectError(await patchOrder(token, order.order_uuid, { daily_max: 50 }), 409, CANCELED_MESSAGE, "conflict");
    expectError(await patchOrder(token, order.order_uuid, {}), 409, CANCELED_MESSAGE, "conflict");
    await expectUnchanged(token, order);
  });

  it("never undoes a cancel that races a patch", async () => {
    const { agencyUuid, token } = await setupAgency();
    for (let round = 0; round < 5; round++) {
      const order = await createLeadOrder(agencyUuid, { daily_max: 5 });
      const [patch, cancel] = await Promise.all([
        patchOrder(token, order.order_uuid, { daily_max: 99 }),
        cancelOrder(token, order.order_uuid),
      ]);
      expect(cancel.status).toBe(200);
      expect([200, 409]).toContain(patch.status);
      const read = (await getOrder(token, order.order_uuid)).body.lead_order;
      expect(read.status).toBe("canceled");
      expect(read.canceled_at).toMatch(ISO);
      // The patch either landed before the cancel (and is kept) or was refused.
      expect(read.daily_max).toBe(patch.status === 200 ? 99 : 5);
    }
  });

  it("answers 404 for a random uuid and for another agency's order, which stays unchanged", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const order = await createLeadOrder(owner.agencyUuid);
    expectError(await patchOrder(owner.token, RANDOM_UUID, { daily_max: 3 }), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await patchOrder(other.token, order.order_uuid, { daily_max: 3 }), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await patchOrder(other.token, order.order_uuid, {}), 404, NOT_FOUND_MESSAGE, "not_found");
    await expectUnchanged(owner.token, order);
  });

  it("requires the lead-orders scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    await expectScopeRequired(agencyUuid, "PATCH", `/lead-orders/${order.order_uuid}`, "lead-orders", { body: { daily_max: 3 } });
    await expectUnchanged(token, order);
  });
});

describe("POST /lead-orders/{order_uuid}/pause", () => {
  it("pauses and resumes an order, idempotently", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);

    const paused = await pauseOrder(token, order.order_uuid, true);
    expect(paused.status).toBe(200);
    expect(Object.keys(paused.body.lead_order).sort()).toEqual(ORDER_KEYS);
    expect(paused.body.lead_order).toMatchObject({ status: "paused", canceled_at: null, daily_max: order.daily_max });
    await expectUnchanged(token, paused.body.lead_order);

    const again = await pauseOrder(token, order.order_uuid, true);
    expect(again.status).toBe(200);
    expect(again.body.lead_order).toEqual(paused.body.lead_order);

    const resumed = await pauseOrder(token, order.order_uuid, false);
    expect(resumed.status).toBe(200);
    expect(resumed.body.lead_order.status).toBe("active");
    expect(resumed.body.lead_order.updated_at >= paused.body.lead_order.updated_at).toBe(true);
    await expectUnchanged(token, resumed.body.lead_order);

    const resumedAgain = await pauseOrder(token, order.order_uuid, false);
    expect(resumedAgain.status).toBe(200);
    expect(resumedAgain.body.lead_order).toEqual(resumed.body.lead_order);
  });

  it("answers an active order told to resume with the order unchanged", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const res = await pauseOrder(token, order.order_uuid, false);
    expect(res.status).toBe(200);
    expect(res.body.lead_order).toEqual(order);
  });

  it.each([
    ["no paused field", {}, "paused is required"],
    ["a string", { paused: "true" }, "paused must be true or false"],
    ["null", { paused: null }, "paused must be true or false"],
    ["an unknown field", { paused: true, until: "tomorrow" }, "Unknown field: until"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    expectError(await api("POST", `/lead-orders/${order.order_uuid}/pause`, { token, body }), 400, message, "validation_error");
    await expectUnchanged(token, order);
  });

  it.each([true, false])("answers 409 for a canceled order (paused: %s) and changes nothing", async (paused) => {
    const { agencyUuid, token } = await setupAgency();
    const order = await canceledOrder(agencyUuid, token);
    expectError(await pauseOrder(token, order.order_uuid, paused), 409, CANCELED_MESSAGE, "conflict");
    await expectUnchanged(token, order);
  });

  it("answers 404 for a random uuid and for another agency's order, which stays unchanged", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const order = await createLeadOrder(owner.agencyUuid);
    expectError(await pauseOrder(owner.token, RANDOM_UUID, true), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await pauseOrder(other.token, order.order_uuid, true), 404, NOT_FOUND_MESSAGE, "not_found");
    await expectUnchanged(owner.token, order);
  });

  it("rejects a malformed order_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await pauseOrder(token, "123", true), 400, "order_uuid must be a UUID", "validation_error");
  });

  it("requires the lead-orders scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    await expectScopeRequired(agencyUuid, "POST", `/lead-orders/${order.order_uuid}/pause`, "lead-orders", { body: { paused: true } });
    await expectUnchanged(token, order);
  });
});

describe("POST /lead-orders/{order_uuid}/cancel", () => {
  it.each([
    ["an active", false],
    ["a paused", true],
  ])("cancels %s order for good", async (_name, pauseFirst) => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    if (pauseFirst) expect((await pauseOrder(token, order.order_uuid, true)).status).toBe(200);

    const res = await cancelOrder(token, order.order_uuid);
    expect(res.status).toBe(200);
    const canceled = res.body.lead_order;
    expect(Object.keys(canceled).sort()).toEqual(ORDER_KEYS);
    expect(canceled).toMatchObject({ order_uuid: order.order_uuid, status: "canceled", daily_max: order.daily_max, states: order.states });
    expect(canceled.canceled_at).toMatch(ISO);
    expect(canceled.updated_at).toBe(canceled.canceled_at);
    await expectUnchanged(token, canceled);
  });

  it("answers 409 when canceling a canceled order, leaving canceled_at as it was", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await canceledOrder(agencyUuid, token);
    expectError(await cancelOrder(token, order.order_uuid), 409, ALREADY_CANCELED_MESSAGE, "conflict");
    await expectUnchanged(token, order);
  });

  it("lets exactly one of several concurrent cancels succeed", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    const results = await Promise.all(Array.from({ length: 4 }, () => cancelOrder(token, order.order_uuid)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)!;
    await expectUnchanged(token, winner.body.lead_order);
  });

  it("answers 404 for a random uuid and for another agency's order, which stays active", async () => {
    const owner = await setupAgency();
    const other = await setupAgency();
    const order = await createLeadOrder(owner.agencyUuid);
    expectError(await cancelOrder(owner.token, RANDOM_UUID), 404, NOT_FOUND_MESSAGE, "not_found");
    expectError(await cancelOrder(other.token, order.order_uuid), 404, NOT_FOUND_MESSAGE, "not_found");
    await expectUnchanged(owner.token, order);
  });

  it("rejects a malformed order_uuid", async () => {
    const { token } = await setupAgency();
    expectError(await cancelOrder(token, "nope"), 400, "order_uuid must be a UUID", "validation_error");
  });

  it("requires the lead-orders scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const order = await createLeadOrder(agencyUuid);
    await expectScopeRequired(agencyUuid, "POST", `/lead-orders/${order.order_uuid}/cancel`, "lead-orders");
    await expectUnchanged(token, order);
  });
});

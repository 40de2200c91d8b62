import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, api, call, expectError } from "../../helpers/http";
import { createAgency, createKey, createMember, setupAgency } from "../../helpers/factories";
import {
  WIDGET_MEMBER_REMOVED,
  bookingBody,
  book,
  createWidget,
  freeStarts,
  nextWeekday,
  openBusinessHours,
  putHours,
  setBookingSettings,
  setClock,
} from "../../helpers/calendar-factories";

const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WIDGET_KEYS = ["booking_widget_uuid", "name", "agent_uuid", "duration_minutes", "active", "created_at"].sort();

describe("POST /admin/v1/agencies/{agency_uuid}/booking-widgets (operator)", () => {
  it("creates an active widget for the agency calendar or a team member's", async () => {
    const agencyUuid = await createAgency();
    const member = await createMember(agencyUuid);
    const res = await admin("POST", `/agencies/${agencyUuid}/booking-widgets`, { name: "  Intro call ", duration_minutes: 30 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const widget = res.body.booking_widget;
    expect(Object.keys(widget).sort()).toEqual(WIDGET_KEYS);
    expect(widget).toMatchObject({ name: "Intro call", agent_uuid: null, duration_minutes: 30, active: true });
    expect(widget.created_at).toMatch(ISO);

    const forMember = await createWidget(agencyUuid, { name: "Tour", agent_uuid: member.toUpperCase(), duration_minutes: 60 });
    expect(forMember).toMatchObject({ name: "Tour", agent_uuid: member, duration_minutes: 60, active: true });
  });

  it("rejects a team member of another agency with 400", async () => {
    const agencyUuid = await createAgency();
    const other = await createAgency();
    const outsider = await createMember(other);
    for (const agent of [outsider, RANDOM_UUID]) {
      const res = await admin("POST", `/agencies/${agencyUuid}/booking-widgets`, { name: "X", agent_uuid: agent, duration_minutes: 30 });
      expectError(res, 400, "Team member not found in this agency", "validation_error");
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no name", { duration_minutes: 30 }, "name is required"],
    ["a blank name", { name: " ", duration_minutes: 30 }, "name must be 1 to 200 characters"],
    ["no duration", { name: "X" }, "duration_minutes must be a whole number from 5 to 240"],
    ["a zero duration", { name: "X", duration_minutes: 0 }, "duration_minutes must be a whole number from 5 to 240"],
    ["a fractional duration", { name: "X", duration_minutes: 30.5 }, "duration_minutes must be a whole number from 5 to 240"],
    ["a malformed agent_uuid", { name: "X", duration_minutes: 30, agent_uuid: "dana" }, "agent_uuid must be a UUID"],
    ["an unknown field", { name: "X", duration_minutes: 30, color: "red" }, "Unknown field: color"],
  ])("rejects %s with 400", async (_name, body, message) => {
    const agencyUuid = await createAgency();
    expectError(await admin("POST", `/agencies/${agencyUuid}/booking-widgets`, body), 400, message, "validation_error");
  });

  it("is 404 for an unknown agency", async () => {
    const res = await admin("POST", `/agencies/${RANDOM_UUID}/booking-widgets`, { name: "X", duration_minutes: 30 });
    expectError(res, 404, "Agency not found", "not_found");
  });

  it("requires the operator token", async () => {
    const agencyUuid = await createAgency();
    const body = { name: "X", duration_minutes: 30 };
    const { token } = await createKey(agencyUuid, { scopes: ["*"] });
    for (const bearer of [null, "wrong", token]) {
      const res = await call("POST", `/admin/v1/agencies/${agencyUuid}/booking-widgets`, { token: bearer, body });
      expectError(res, 401, "Invalid or missing token", "invalid_token");
    }
  });

  it("is described in the operator document", async () => {
    const res = await admin("GET", "/openapi.json");
    expect(res.body.paths["/agencies/{agency_uuid}/booking-widgets"].post.operationId).toBe("adminCreateBookingWidget");
  });
});

describe("GET /booking-widgets", () => {
  it("lists the agency's widgets newest first with exact fields and pagination", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    const first = await createWidget(agencyUuid, { name: "Intro call" });
    const second = await createWidget(agencyUuid, { name: "Tour", agent_uuid: member, duration_minutes: 60 });
    const third = await createWidget(agencyUuid, { name: "Listing review", duration_minutes: 45 });

    const res = await api("GET", "/booking-widgets", { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.booking_widgets).toEqual([third, second, first]);
    expect(Object.keys(res.body.booking_widgets[0]).sort()).toEqual(WIDGET_KEYS);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });

    const page2 = await api("GET", "/booking-widgets?page=2&limit=2", { token });
    expect(page2.body.booking_widgets).toEqual([first]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, next_cursor: null });
  });

  it("never lists another agency's widgets", async () => {
    const a = await setupAgency();
    const b = await setupAgency();
    await createWidget(a.agencyUuid);
    const res = await api("GET", "/booking-widgets", { token: b.token });
    expect(res.body.booking_widgets).toEqual([]);
    expect(res.body.pagination.total).toBe(0);
  });

  it("rejects invalid pagination with 400", async () => {
    const { token } = await setupAgency();
    expectError(await api("GET", "/booking-widgets?page=0", { token }), 400, /^page/, "validation_error");
    expectError(await api("GET", "/booking-widgets?limit=abc", { token }), 400, /^limit/, "validation_error");
  });

  it("requires the appointments scope, which a calendar key does not have", async () => {
    const { agencyUuid } = await setupAgency();
    const { token } = await createKey(agencyUuid, { scopes: ["calendar"] });
    expectError(await api("GET", "/booking-widgets", { token }), 403, "Token missing required scope: appointments");
  });
});

describe("booking through a widget", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("makes the widget of a removed team member inactive at once, and booking through it 409 with nothing written", async () => {
    const { agencyUuid, token } = await setupAgency();
    const member = await createMember(agencyUuid);
    await openBusinessHours(token);
    await openBusinessHours(token, `?agent_uuid=${member}`);
    const memberWidget = await createWidget(agencyUuid, { name: "Tour with Dana", agent_uuid: member });
    const agencyWidget = await createWidget(agencyUuid, { name: "Intro call" });
    const listed = async () => (await api("GET", "/booking-widgets", { token })).body.booking_widgets;
    expect(await listed()).toEqual([agencyWidget, memberWidget]);
    const [slot] = await freeStarts(token, nextWeekday(3));

    expect((await api("DELETE", `/users/${member}`, { token })).status).toBe(200);
    expect(await listed()).toEqual([agencyWidget, { ...memberWidget, active: false }]);
    const res = await api("POST", "/calendar/bookings", { token, body: bookingBody(slot, { booking_widget_uuid: memberWidget.booking_widget_uuid }) });
    expectError(res, 409, WIDGET_MEMBER_REMOVED, "conflict");
    expect((await api("GET", "/appointments", { token })).body.pagination.total).toBe(0);
    expect((await api("GET", "/contacts", { token })).body.pagination.total).toBe(0);
    // The agency's own widget is untouched.
    expect((await book(token, slot, { booking_widget_uuid: agencyWidget.booking_widget_uuid })).booking_widget_uuid).toBe(
      agencyWidget.booking_widget_uuid,
    );
  });

  it("checks duration_minutes against booking.default_slot_minutes for hours set without slot_minutes", async () => {
    setClock("2027-03-01T13:00:00.000Z"); // Monday 08:00 in New York
    const { agencyUuid, token } = await setupAgency();
    await putHours(token, { timezone: "America/New_York", days: [{ weekday: 2, start: "09:00", end: "17:00" }] });
    const hourLong = await createWidget(agencyUuid, { duration_minutes: 60 });
    const body = bookingBody("2027-03-02T15:00:00.000Z", { booking_widget_uuid: hourLong.booking_widget_uuid });
    expectError(
      await api("POST", "/calendar/bookings", { token, body }),
      400,
      "The booking widget's duration_minutes (60) does not match the calendar's slot_minutes (30)",
      "validation_error",
    );
    await setBookingSettings(token, { default_slot_minutes: 60 });
    const appointment = await book(token, "2027-03-02T15:00:00.000Z", { booking_widget_uuid: hourLong.booking_widget_uuid });
    expect(appointment).toMatchObject({ start_at: "2027-03-02T15:00:00.000Z", end_at: "2027-03-02T16:00:00.000Z" });
  });
});

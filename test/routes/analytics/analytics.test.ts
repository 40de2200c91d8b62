import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "@/app";
import { MAX_OTHER_STEP_KEYS, MAX_REPORT_PATHS } from "@/domain/analytics/path-report";
import { rate } from "@/domain/analytics/path-report";
import { api, BASE, expectError } from "../../helpers/http";
import { createAgency, createKey, setupAgency } from "../../helpers/factories";
import { book, freeStarts, nextWeekday, openBusinessHours } from "../../helpers/calendar-factories";
import { CONTENT_STEP, FORM_STEP, QUESTION_STEP, archivePath, createContact, createPath, pathEvent, pathEvents, publishPath } from "../../helpers/path-factories";
import { dbOf } from "../../helpers/shards";

const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const MARCH = "?from=2026-03-01&to=2026-03-10";

const report = (token: string, query: string) => api("GET", `/analytics/paths${query}`, { token });

/** A report with the benchmark's D1 metrics on: the round trips of this one request. */
async function measuredReport(token: string, query: string) {
  const res = await app.fetch(
    new Request(`${BASE}/api/v2/analytics/paths${query}`, { headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" } }),
    { ...env, BENCH_METRICS: "on" },
    createExecutionContext(),
  );
  return { status: res.status, body: (await res.json()) as any, roundTrips: Number(res.headers.get("X-Bench-D1-Round-Trips")) };
}

/** Zero counts and rates, as a report shows a path or step without events. */
const ZERO = { views: 0, leads: 0, bookings: 0, view_to_lead_rate: 0, lead_to_booking_rate: 0, view_to_booking_rate: 0 };

/** A UTC date `offset` days from today, YYYY-MM-DD. */
const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The hand-computed fixture. The agency is in America/New_York, so 2026-03-01..2026-03-10 runs
 * from 2026-03-01T05:00:00.000Z (midnight EST) to 2026-03-11T03:59:59.999Z (23:59:59.999 EDT;
 * DST starts on 2026-03-08). Path A gets events inside the range, on both edges, and just
 * outside them; B has views and a booking but no lead; C has no events; D is archived after
 * events in the range; E is archived with events only outside it; another agency has events
 * in the same range.
 */
async function fixture() {
  const agency = await setupAgency();
  const { agencyUuid, token } = agency;
  const a = await createPath(token, { name: "A", steps: [CONTENT_STEP, QUESTION_STEP, FORM_STEP] });
  await publishPath(token, a.path_uuid);
  const b = await createPath(token, { name: "B", steps: [{ key: "s1", type: "content", title: "S1" }] });
  const c = await createPath(token, { name: "C", steps: [{ key: "c1", type: "booking", title: "Book" }] });
  const d = await createPath(token, { name: "D" });
  const e = await createPath(token, { name: "E" });

  const A = a.path_uuid;
  await pathEvents(agencyUuid, 4, { path_uuid: A, type: "view", step: "intro", at: "2026-03-05T15:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "view", step: "intro", at: "2026-03-01T04:59:59.999Z" }); // Feb 28 local: out
  await pathEvent(agencyUuid, { path_uuid: A, type: "view", step: "intro", at: "2026-03-11T04:00:00.000Z" }); // Mar 11 local: out
  await pathEvents(agencyUuid, 2, { path_uuid: A, type: "view", step: "budget", at: "2026-03-08T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "view", step: "contact-form", at: "2026-03-09T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "view", at: "2026-03-02T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "view", step: "old-step", at: "2026-03-03T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "lead", step: "contact-form", at: "2026-03-01T05:00:00.000Z" }); // first instant: in
  await pathEvent(agencyUuid, { path_uuid: A, type: "lead", step: "contact-form", at: "2026-03-11T03:59:59.999Z" }); // last instant: in
  await pathEvent(agencyUuid, { path_uuid: A, type: "lead", at: "2026-03-06T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "booking", at: "2026-03-07T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: A, type: "booking", at: "2026-02-20T12:00:00.000Z" }); // out

  await pathEvents(agencyUuid, 3, { path_uuid: b.path_uuid, type: "view", step: "s1", at: "2026-03-04T12:00:00.000Z" });
  await pathEvent(agencyUuid, { path_uuid: b.path_uuid, type: "booking", at: "2026-03-04T13:00:00.000Z" });

  await pathEvents(agencyUuid, 2, { path_uuid: d.path_uuid, type: "view", at: "2026-03-05T12:00:00.000Z" });
  await archivePath(token, d.path_uuid);
  await pathEvent(agencyUuid, { path_uuid: e.path_uuid, type: "view", at: "2026-04-01T12:00:00.000Z" });
  await archivePath(token, e.path_uuid);

  const other = await setupAgency();
  const x = await createPath(other.token, { name: "X" });
  await pathEvents(other.agencyUuid, 2, { path_uuid: x.path_uuid, type: "view", at: "2026-03-05T12:00:00.000Z" });
  await pathEvent(other.agencyUuid, { path_uuid: x.path_uuid, type: "lead", at: "2026-03-05T12:00:00.000Z" });

  return { ...agency, a, b, c, d, e, other };
}

// Worked out by hand from the fixture's events.
const A_REPORT = {
  name: "A",
  status: "published",
  // views: intro 4 + budget 2 + contact-form 1 + no step 1 + old-step 1 = 9; leads 3; bookings 1
  views: 9,
  leads: 3,
  bookings: 1,
  view_to_lead_rate: 0.3333, // 3/9
  lead_to_booking_rate: 0.3333, // 1/3
  view_to_booking_rate: 0.1111, // 1/9
  steps: [
    { key: "intro", type: "content", title: "Welcome", ...ZERO, views: 4 },
    { key: "budget", type: "question", title: "What is your budget?", ...ZERO, views: 2 },
    // 2 leads over 1 view: rates are not capped at 1.
    { key: "contact-form", type: "form", title: "Your details", ...ZERO, views: 1, leads: 2, view_to_lead_rate: 2 },
    { key: "old-step", type: null, title: null, ...ZERO, views: 1 },
  ],
};
const B_REPORT = {
  name: "B",
  status: "draft",
  views: 3,
  leads: 0,
  bookings: 1,
  view_to_lead_rate: 0,
  lead_to_booking_rate: 0, // no leads: 0, not a division by zero
  view_to_booking_rate: 0.3333, // 1/3
  steps: [{ key: "s1", type: "content", title: "S1", ...ZERO, views: 3 }],
};
const C_REPORT = { name: "C", status: "draft", ...ZERO, steps: [{ key: "c1", type: "booking", title: "Book", ...ZERO }] };
const D_REPORT = { name: "D", status: "archived", ...ZERO, views: 2, steps: [] };
const TOTALS = {
  views: 14, // 9 + 3 + 0 + 2
  leads: 3,
  bookings: 2,
  view_to_lead_rate: 0.2143, // 3/14 = 0.214285...
  lead_to_booking_rate: 0.6667, // 2/3 = 0.666...
  view_to_booking_rate: 0.1429, // 2/14 = 0.142857...
};

describe("GET /analytics/paths", () => {
  it("matches the hand-computed fixture: per path, per step, totals, range edges in the agency's time zone", async () => {
    const { token, a, b, c, d } = await fixture();
    const res = await report(token, MARCH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      report: {
        from: "2026-03-01",
        to: "2026-03-10",
        timezone: "America/New_York",
        range_start: "2026-03-01T05:00:00.000Z",
        range_end: "2026-03-11T03:59:59.999Z",
        totals: TOTALS,
        // Newest first; E (archived, no events in the range) is left out.
        paths: [
          { path_uuid: d.path_uuid, ...D_REPORT },
          { path_uuid: c.path_uuid, ...C_REPORT },
          { path_uuid: b.path_uuid, ...B_REPORT },
          { path_uuid: a.path_uuid, ...A_REPORT },
        ],
      },
    });
  });

  it("reports one path with path_uuid, an archived one included", async () => {
    const { token, a, e } = await fixture();
    const one = await report(token, `${MARCH}&path_uuid=${a.path_uuid.toUpperCase()}`);
    expect(one.status).toBe(200);
    const { views, leads, bookings, view_to_lead_rate, lead_to_booking_rate, view_to_booking_rate } = A_REPORT;
    expect(one.body.report.totals).toEqual({ views, leads, bookings, view_to_lead_rate, lead_to_booking_rate, view_to_booking_rate });
    expect(one.body.report.paths).toEqual([{ path_uuid: a.path_uuid, ...A_REPORT }]);

    const archived = await report(token, `${MARCH}&path_uuid=${e.path_uuid}`);
    expect(archived.status).toBe(200);
    expect(archived.body.report.paths).toEqual([{ path_uuid: e.path_uuid, name: "E", status: "archived", ...ZERO, steps: [] }]);
    expect(archived.body.report.totals).toEqual(ZERO);
    // E's April view is in April's report.
    const april = await report(token, `?from=2026-04-01&to=2026-04-01&path_uuid=${e.path_uuid}`);
    expect(april.body.report.paths[0]).toMatchObject({ views: 1, view_to_lead_rate: 0 });
  });

  it("answers zeros with 0 rates when nothing happened, and an empty report for an agency without paths", async () => {
    const { token } = await setupAgency();
    const empty = await report(token, MARCH);
    expect(empty.status).toBe(200);
    expect(empty.body.report).toMatchObject({ totals: ZERO, paths: [] });

    const path = await createPath(token, { name: "Quiet", steps: [CONTENT_STEP] });
    const quiet = await report(token, MARCH);
    expect(quiet.body.report.totals).toEqual(ZERO);
    expect(quiet.body.report.paths).toEqual([
      { path_uuid: path.path_uuid, name: "Quiet", status: "draft", ...ZERO, steps: [{ key: "intro", type: "content", title: "Welcome", ...ZERO }] },
    ]);
  });

  it("cuts days at midnight in the agency's time zone", async () => {
    const agencyUuid = await createAgency("Tokyo Realty", "Asia/Tokyo");
    const { token } = await createKey(agencyUuid, { scopes: ["*"] });
    const path = await createPath(token);
    // 2026-03-01T15:00Z is 2026-03-02 00:00 in Tokyo (UTC+9, no DST).
    await pathEvent(agencyUuid, { path_uuid: path.path_uuid, type: "view", at: "2026-03-01T15:00:00.000Z" });
    await pathEvent(agencyUuid, { path_uuid: path.path_uuid, type: "view", at: "2026-03-01T14:59:59.999Z" });

    const march1 = await report(token, "?from=2026-03-01&to=2026-03-01");
    expect(march1.body.report).toMatchObject({
      timezone: "Asia/Tokyo",
      range_start: "2026-02-28T15:00:00.000Z",
      range_end: "2026-03-01T14:59:59.999Z",
      totals: { views: 1 },
    });
    const march2 = await report(token, "?from=2026-03-02&to=2026-03-02");
    expect(march2.body.report.totals.views).toBe(1);
    expect((await report(token, "?from=2026-03-01&to=2026-03-02")).body.report.totals.views).toBe(2);
  });

  it("counts a lead when a contact is created with a path_uuid, and nothing otherwise", async () => {
    const { token } = await setupAgency();
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    await publishPath(token, path.path_uuid);
    const range = `?from=${utcDay(-1)}&to=${utcDay(1)}&path_uuid=${path.path_uuid}`;
    expect((await report(token, range)).body.report.totals.leads).toBe(0);

    await createContact(token, { email: "lead@example.com", path_uuid: path.path_uuid });
    await createContact(token, { email: "nopath@example.com" });
    // A rejected create records nothing.
    const duplicate = await api("POST", "/contacts", { token, body: { first_name: "D", last_name: "D", email: "lead@example.com", path_uuid: path.path_uuid } });
    expect(duplicate.status).toBe(409);

    const res = await report(token, range);
    expect(res.body.report.totals).toEqual({ ...ZERO, leads: 1 });
    expect(res.body.report.paths[0].steps).toEqual([{ key: "intro", type: "content", title: "Welcome", ...ZERO }]);
  });

  it("counts a booking when a booking names the path, at the time it is booked", async () => {
    const { token } = await setupAgency();
    await openBusinessHours(token);
    const path = await createPath(token, { steps: [CONTENT_STEP] });
    const [slot] = await freeStarts(token, nextWeekday(3));
    await book(token, slot!, { path_uuid: path.path_uuid });
    const [other] = await freeStarts(token, nextWeekday(4));
    await book(token, other!);

    // The event is dated when the booking was made (today), not at the appointment's start.
    const res = await report(token, `?from=${utcDay(-1)}&to=${utcDay(1)}&path_uuid=${path.path_uuid}`);
    expect(res.body.report.totals).toEqual({ ...ZERO, bookings: 1 });
  });

  it.each([
    ["no dates", "", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["no to", "?from=2026-03-01", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["a date in another format", "?from=2026-3-1&to=2026-03-10", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["an impossible date", "?from=2026-02-30&to=2026-03-10", "Invalid date range. Use YYYY-MM-DD for from and to."],
    ["to before from", "?from=2026-03-10&to=2026-03-01", "Date range must be between 1 and 90 days inclusive."],
    ["91 days", "?from=2026-01-01&to=2026-04-01", "Date range must be between 1 and 90 days inclusive."],
    ["a malformed path_uuid", `${MARCH}&path_uuid=abc`, "path_uuid must be a UUID"],
    ["an unknown path_uuid", `${MARCH}&path_uuid=${RANDOM_UUID}`, "Unknown path_uuid"],
  ])("rejects %s with 400", async (_name, query, message) => {
    const { token } = await setupAgency();
    expectError(await report(token, query), 400, message, "validation_error");
  });

  it("accepts exactly 90 days", async () => {
    const { token } = await setupAgency();
    const res = await report(token, "?from=2026-01-01&to=2026-03-31");
    expect(res.status).toBe(200);
    expect(res.body.report).toMatchObject({ from: "2026-01-01", to: "2026-03-31", range_start: "2026-01-01T05:00:00.000Z", range_end: "2026-04-01T03:59:59.999Z" });
  });

  it("reads in two D1 round trips (timezone and paths, then events); an unknown path_uuid stops after the first", async () => {
    const { token, a, e, other } = await fixture();
    const all = await measuredReport(token, MARCH);
    expect(all.status).toBe(200);
    expect(all.body.report.totals).toEqual(TOTALS);
    expect(all.roundTrips).toBe(2);
    const one = await measuredReport(token, `${MARCH}&path_uuid=${a.path_uuid}`);
    expect(one.status).toBe(200);
    expect(one.body.report.paths).toEqual([{ path_uuid: a.path_uuid, ...A_REPORT }]);
    expect(one.roundTrips).toBe(2);
    const archived = await measuredReport(token, `${MARCH}&path_uuid=${e.path_uuid}`);
    expect(archived.status).toBe(200);
    expect(archived.roundTrips).toBe(2);
    const theirPath = (await api("GET", "/paths", { token: other.token })).body.paths[0].path_uuid;
    for (const unknown of [RANDOM_UUID, theirPath]) {
      const res = await measuredReport(token, `${MARCH}&path_uuid=${unknown}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Unknown path_uuid");
      expect(res.roundTrips).toBe(1);
    }
  });

  it("treats another agency's path_uuid as unknown and never counts its events", async () => {
    const { token, other } = await fixture();
    const theirPath = (await api("GET", "/paths", { token: other.token })).body.paths[0].path_uuid;
    expectError(await report(token, `${MARCH}&path_uuid=${theirPath}`), 400, "Unknown path_uuid", "validation_error");
    const theirs = await report(other.token, MARCH);
    expect(theirs.body.report.totals).toEqual({ ...ZERO, views: 2, leads: 1, view_to_lead_rate: 0.5 });
  });

  it("requires the analytics scope; paths is not enough", async () => {
    const { agencyUuid } = await setupAgency();
    const pathsKey = await createKey(agencyUuid, { scopes: ["paths"] });
    expectError(await report(pathsKey.token, MARCH), 403, "Token missing required scope: analytics", "insufficient_scope");
    const analyticsKey = await createKey(agencyUuid, { scopes: ["analytics"] });
    expect((await report(analyticsKey.token, MARCH)).status).toBe(200);
  });
});

describe("GET /analytics/paths on a large agency", () => {
  /** `count` events written straight to D1, one per step key `<prefix>-00`, `<prefix>-01`, ... (or none). */
  const insertViews = async (agencyUuid: string, pathUuid: string, count: number, stepPrefix?: string) =>
    (await dbOf(agencyUuid)).prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
       INSERT INTO path_events (id, agency_id, path_id, type, step, contact_id, occurred_at, created_at)
       SELECT lower(hex(randomblob(16))), ?, ?, 'view', CASE WHEN ? IS NULL THEN NULL ELSE printf('%s-%02d', ?, i) END, NULL,
         '2026-03-05T12:00:00.000Z', '2026-03-05T12:00:00.000Z' FROM n`,
    )
      .bind(count, agencyUuid, pathUuid, stepPrefix ?? null, stepPrefix ?? null)
      .run();

  it(`lists the ${MAX_REPORT_PATHS} newest paths, and totals add up every path`, async () => {
    const { agencyUuid, token } = await setupAgency();
    // One path more than a report lists, written straight to D1 a second apart: "Path 000" is the oldest.
    const db = await dbOf(agencyUuid);
    const insert = db.prepare(
      `INSERT INTO paths (id, agency_id, name, description, status, steps, version, published_version, published_at, deleted_at, created_at, updated_at)
       VALUES (?, ?, ?, NULL, 'draft', '[]', 1, NULL, NULL, NULL, ?, ?)`,
    );
    const ids = Array.from({ length: MAX_REPORT_PATHS + 1 }, () => crypto.randomUUID());
    await db.batch(
      ids.map((id, i) => {
        const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        return insert.bind(id, agencyUuid, `Path ${String(i).padStart(3, "0")}`, at, at);
      }),
    );
    const oldest = ids[0]!;
    await insertViews(agencyUuid, oldest, 3);

    const res = await report(token, MARCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const names = res.body.report.paths.map((p: { name: string }) => p.name);
    expect(names).toHaveLength(MAX_REPORT_PATHS);
    expect(names[0]).toBe(`Path ${String(MAX_REPORT_PATHS).padStart(3, "0")}`);
    expect(names).not.toContain("Path 000");
    expect(res.body.report.totals.views).toBe(3);

    const one = await report(token, `${MARCH}&path_uuid=${oldest}`);
    expect(one.body.report.paths.map((p: { name: string; views: number }) => [p.name, p.views])).toEqual([["Path 000", 3]]);
  });

  it(`lists at most ${MAX_OTHER_STEP_KEYS} step keys of removed steps per path`, async () => {
    const { agencyUuid, token } = await setupAgency();
    const path = await createPath(token, { name: "A", steps: [CONTENT_STEP] });
    await insertViews(agencyUuid, path.path_uuid, MAX_OTHER_STEP_KEYS + 1, "old");

    const res = await report(token, MARCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [reported] = res.body.report.paths;
    expect(reported.views).toBe(MAX_OTHER_STEP_KEYS + 1);
    const keys = reported.steps.map((s: { key: string }) => s.key);
    expect(keys).toEqual([CONTENT_STEP.key, ...Array.from({ length: MAX_OTHER_STEP_KEYS }, (_, i) => `old-${String(i).padStart(2, "0")}`)]);
  });
});

describe("conversion rate rounding", () => {
  it.each([
    [1, 3, 0.3333],
    [2, 3, 0.6667],
    [1, 8, 0.125],
    [1, 20_000, 0.0001], // 0.00005 rounds half up
    [3, 20_000, 0.0002], // 0.00015 too, despite floating point
    [1, 30_000, 0],
    [3, 2, 1.5],
    [5, 0, 0],
    [0, 0, 0],
  ])("%i / %i is %d", (numerator, denominator, expected) => {
    expect(rate(numerator, denominator)).toBe(expected);
  });
});

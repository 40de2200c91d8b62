import { describe, expect, it } from "vitest";
import { admin, api, expectError } from "../../helpers/http";
import { setupAgency } from "../../helpers/factories";
import { expectScopeRequired } from "../../helpers/route-checks";
import { dbOf } from "../../helpers/shards";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const RANDOM_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const TIMEZONE_MESSAGE = "calling_timezone must be an IANA time zone such as America/New_York";
const UNKNOWN_AGENT_MESSAGE = "voice.default_voice_agent_uuid is not a Voice AI agent of this agency";
const INACTIVE_AGENT_MESSAGE = "voice.default_voice_agent_uuid is not an active Voice AI agent; activate it or choose another";
const HOURS_DIFFER = "calling_hours.start and calling_hours.end must differ (an end before the start runs past midnight)";
const DAYS_MESSAGE = "calling_hours.days must list 1 to 7 different weekdays, 0 (Sunday) to 6 (Saturday)";
const SLOT_MESSAGE = "booking.default_slot_minutes must be a whole number from 5 to 240, in steps of 5";

const DEFAULTS = {
  calling_hours: { start: "09:00", end: "20:00", days: [0, 1, 2, 3, 4, 5, 6] },
  booking: { default_slot_minutes: 30, buffer_minutes: 0, min_notice_minutes: 60 },
  voice: { default_voice_agent_uuid: null, max_call_minutes: 10, voicemail_behavior: "hang_up" },
};

const getSettings = (token: string) => api("GET", "/settings", { token });
const patchSettings = (token: string, body: unknown) => api("PATCH", "/settings", { token, body });

/** The settings as GET /settings shows them. */
async function readSettings(token: string) {
  const res = await getSettings(token);
  expect(res.status).toBe(200);
  return res.body.settings as Record<string, any>;
}

/**
 * Voice agents come from the operator API of the Voice AI resource; this inserts one the way
 * that route does, so settings tests do not depend on it.
 */
async function insertVoiceAgent(agencyUuid: string, name = "Ava", status = "active") {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await (await dbOf(agencyUuid)).prepare("INSERT INTO voice_agents (id, agency_id, name, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(id, agencyUuid, name, status, now, now)
    .run();
  return id;
}

describe("GET /settings", () => {
  it("shows the agency's name and timezone with defaults for everything never set", async () => {
    const { token } = await setupAgency("Settings Agency");
    const res = await getSettings(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      settings: { agency_name: "Settings Agency", calling_timezone: "America/New_York", ...DEFAULTS, updated_at: expect.stringMatching(ISO) },
    });
  });

  it("shows only the calling agency's settings", async () => {
    const a = await setupAgency("Agency A");
    const b = await setupAgency("Agency B");
    expect((await patchSettings(a.token, { agency_name: "Renamed A", booking: { buffer_minutes: 15 } })).status).toBe(200);
    const settings = await readSettings(b.token);
    expect(settings.agency_name).toBe("Agency B");
    expect(settings.booking).toEqual(DEFAULTS.booking);
  });
});

describe("PATCH /settings", () => {
  it("changes the agency name and calling timezone, stored on the agency itself", async () => {
    const { agencyUuid, token } = await setupAgency("Old Name");
    const before = await readSettings(token);
    const res = await patchSettings(token, { agency_name: "  New Name ", calling_timezone: "America/Chicago" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      settings: { ...before, agency_name: "New Name", calling_timezone: "America/Chicago", updated_at: expect.stringMatching(ISO) },
    });
    expect(res.body.settings.updated_at >= before.updated_at).toBe(true);
    expect(await readSettings(token)).toEqual(res.body.settings);

    const agencies = await admin("GET", "/agencies");
    expect(agencies.body.agencies.find((a: any) => a.agency_uuid === agencyUuid)).toMatchObject({
      name: "New Name",
      timezone: "America/Chicago",
    });
  });

  it("merges booking and voice defaults key by key", async () => {
    const { token } = await setupAgency();
    const first = await patchSettings(token, { booking: { buffer_minutes: 15 } });
    expect(first.status).toBe(200);
    expect(first.body.settings.booking).toEqual({ ...DEFAULTS.booking, buffer_minutes: 15 });

    const second = await patchSettings(token, { booking: { min_notice_minutes: 0 }, voice: { max_call_minutes: 25 } });
    expect(second.status).toBe(200);
    expect(second.body.settings.booking).toEqual({ default_slot_minutes: 30, buffer_minutes: 15, min_notice_minutes: 0 });
    expect(second.body.settings.voice).toEqual({ ...DEFAULTS.voice, max_call_minutes: 25 });

    const third = await patchSettings(token, { calling_hours: { start: "08:30", end: "19:45" }, voice: { voicemail_behavior: "leave_message" } });
    expect(third.status).toBe(200);
    const settings = await readSettings(token);
    expect(settings).toEqual(third.body.settings);
    expect(settings).toMatchObject({
      calling_hours: { start: "08:30", end: "19:45", days: DEFAULTS.calling_hours.days },
      booking: { default_slot_minutes: 30, buffer_minutes: 15, min_notice_minutes: 0 },
      voice: { default_voice_agent_uuid: null, max_call_minutes: 25, voicemail_behavior: "leave_message" },
    });
  });

  it("keeps both of two concurrent patches of different settings", async () => {
    const { token } = await setupAgency();
    const results = await Promise.all([
      patchSettings(token, { booking: { buffer_minutes: 5 } }),
      patchSettings(token, { booking: { default_slot_minutes: 45 } }),
      patchSettings(token, { voice: { max_call_minutes: 30 } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const settings = await readSettings(token);
    expect(settings.booking).toEqual({ default_slot_minutes: 45, buffer_minutes: 5, min_notice_minutes: 60 });
    expect(settings.voice.max_call_minutes).toBe(30);
  });

  it("sets the default voice agent to one of the agency's agents and clears it with null", async () => {
    const { agencyUuid, token } = await setupAgency();
    const agent = await insertVoiceAgent(agencyUuid);
    const set = await patchSettings(token, { voice: { default_voice_agent_uuid: agent.toUpperCase() } });
    expect(set.status).toBe(200);
    expect(set.body.settings.voice).toEqual({ ...DEFAULTS.voice, default_voice_agent_uuid: agent });
    expect((await readSettings(token)).voice.default_voice_agent_uuid).toBe(agent);

    const cleared = await patchSettings(token, { voice: { default_voice_agent_uuid: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings.voice).toEqual(DEFAULTS.voice);
    expect((await readSettings(token)).voice.default_voice_agent_uuid).toBeNull();
  });

  it("takes calling hours past midnight, all day, and on chosen weekdays, keeping the days when a patch sends none", async () => {
    const { token } = await setupAgency();
    const night = await patchSettings(token, { calling_hours: { start: "22:00", end: "02:00", days: [5, 1, 3] } });
    expect(night.status).toBe(200);
    expect(night.body.settings.calling_hours).toEqual({ start: "22:00", end: "02:00", days: [1, 3, 5] });
    const allDay = await patchSettings(token, { calling_hours: { start: "00:00", end: "24:00" } });
    expect(allDay.body.settings.calling_hours).toEqual({ start: "00:00", end: "24:00", days: [1, 3, 5] });
    const everyDay = await patchSettings(token, { calling_hours: { start: "09:00", end: "17:00", days: [6, 5, 4, 3, 2, 1, 0] } });
    expect(everyDay.body.settings.calling_hours).toEqual({ start: "09:00", end: "17:00", days: DEFAULTS.calling_hours.days });
    expect((await readSettings(token)).calling_hours).toEqual(everyDay.body.settings.calling_hours);
  });

  it("rejects an inactive voice agent as the default with 400", async () => {
    const { agencyUuid, token } = await setupAgency();
    const inactive = await insertVoiceAgent(agencyUuid, "Retired", "inactive");
    const before = await readSettings(token);
    expectError(await patchSettings(token, { voice: { default_voice_agent_uuid: inactive } }), 400, INACTIVE_AGENT_MESSAGE, "validation_error");
    expect(await readSettings(token)).toEqual(before);
  });

  it("rejects another agency's voice agent and an unknown one with 400", async () => {
    const { token } = await setupAgency();
    const other = await setupAgency();
    const othersAgent = await insertVoiceAgent(other.agencyUuid);
    const before = await readSettings(token);
    for (const uuid of [othersAgent, RANDOM_UUID]) {
      expectError(await patchSettings(token, { voice: { default_voice_agent_uuid: uuid } }), 400, UNKNOWN_AGENT_MESSAGE, "validation_error");
    }
    expect(await readSettings(token)).toEqual(before);
  });

  it("answers an empty body with the settings unchanged", async () => {
    const { token } = await setupAgency();
    const before = await readSettings(token);
    const res = await patchSettings(token, {});
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual(before);
  });

  it.each([["America/Chicago"], ["Europe/Berlin"], ["UTC"], ["Asia/Kolkata"]])("accepts the IANA time zone %s", async (timezone) => {
    const { token } = await setupAgency();
    const res = await patchSettings(token, { calling_timezone: timezone });
    expect(res.status).toBe(200);
    expect((await readSettings(token)).calling_timezone).toBe(timezone);
  });

  it.each([
    ["an unknown zone", "Mars/Olympus_Mons"],
    ["a UTC offset", "+02:00"],
    ["a negative offset", "-05:00"],
    ["an empty string", ""],
    ["a number", 5],
    ["null", null],
    ["a very long string", "America/".padEnd(300, "x")],
  ])("rejects %s as calling_timezone and keeps the old one", async (_name, timezone) => {
    const { token } = await setupAgency();
    expectError(await patchSettings(token, { calling_timezone: timezone }), 400, TIMEZONE_MESSAGE, "validation_error");
    expect((await readSettings(token)).calling_timezone).toBe("America/New_York");
  });

  it.each([
    ["a blank agency name", { agency_name: "  " }, "agency_name must be 1 to 200 characters"],
    ["a 201-character agency name", { agency_name: "a".repeat(201) }, "agency_name must be 1 to 200 characters"],
    ["calling hours of zero length", { calling_hours: { start: "09:00", end: "09:00" } }, HOURS_DIFFER],
    ["calling hours without end", { calling_hours: { start: "09:00" } }, "calling_hours.end is required"],
    ["a time that is not HH:MM", { calling_hours: { start: "9am", end: "20:00" } }, "calling_hours.start must be a time of day HH:MM from 00:00 to 23:59"],
    ["a start at 24:00", { calling_hours: { start: "24:00", end: "09:00" } }, "calling_hours.start must be a time of day HH:MM from 00:00 to 23:59"],
    ["an end at 00:00", { calling_hours: { start: "09:00", end: "00:00" } }, "calling_hours.end must be a time of day HH:MM from 00:01 to 24:00"],
    ["an end past 24:00", { calling_hours: { start: "09:00", end: "24:30" } }, "calling_hours.end must be a time of day HH:MM from 00:01 to 24:00"],
    ["calling hours that are not an object", { calling_hours: "9-5" }, "calling_hours must be an object with start and end"],
    ["no calling days", { calling_hours: { start: "09:00", end: "17:00", days: [] } }, DAYS_MESSAGE],
    ["weekday 7", { calling_hours: { start: "09:00", end: "17:00", days: [7] } }, DAYS_MESSAGE],
    ["a repeated weekday", { calling_hours: { start: "09:00", end: "17:00", days: [1, 1] } }, DAYS_MESSAGE],
    ["days that are not a list", { calling_hours: { start: "09:00", end: "17:00", days: "weekdays" } }, DAYS_MESSAGE],
    ["an unknown key in calling_hours", { calling_hours: { start: "09:00", end: "17:00", zone: "UTC" } }, "Unknown field: zone"],
    ["a 4-minute slot", { booking: { default_slot_minutes: 4 } }, SLOT_MESSAGE],
    ["a slot longer than a calendar's longest", { booking: { default_slot_minutes: 245 } }, SLOT_MESSAGE],
    ["a slot off the 5-minute steps", { booking: { default_slot_minutes: 32 } }, SLOT_MESSAGE],
    ["a fractional buffer", { booking: { buffer_minutes: 2.5 } }, "booking.buffer_minutes must be a whole number from 0 to 240"],
    ["a negative notice", { booking: { min_notice_minutes: -1 } }, "booking.min_notice_minutes must be a whole number from 0 to 43200"],
    ["a null booking value", { booking: { buffer_minutes: null } }, "booking.buffer_minutes must be a whole number from 0 to 240"],
    ["an unknown booking key", { booking: { slot: 30 } }, "Unknown field: slot"],
    ["a 61-minute call cap", { voice: { max_call_minutes: 61 } }, "voice.max_call_minutes must be a whole number from 1 to 60"],
    ["an unknown voicemail behavior", { voice: { voicemail_behavior: "beep" } }, "voice.voicemail_behavior must be one of: hang_up, leave_message"],
    ["a malformed voice agent uuid", { voice: { default_voice_agent_uuid: "ava" } }, "voice.default_voice_agent_uuid must be a UUID"],
    ["an unknown voice key", { voice: { api_key: "x" } }, "Unknown field: api_key"],
    ["an unknown top-level key", { google_oauth_token: "x" }, "Unknown field: google_oauth_token"],
    ["a null section", { booking: null }, "booking must be an object"],
  ])("rejects %s with 400 and changes nothing", async (_name, body, message) => {
    const { token } = await setupAgency();
    const before = await readSettings(token);
    expectError(await patchSettings(token, body), 400, message, "validation_error");
    expect(await readSettings(token)).toEqual(before);
  });

  it("applies nothing when one part of a patch is invalid", async () => {
    const { token } = await setupAgency();
    const before = await readSettings(token);
    const res = await patchSettings(token, { agency_name: "Changed", booking: { buffer_minutes: 999 } });
    expectError(res, 400, "booking.buffer_minutes must be a whole number from 0 to 240", "validation_error");
    expect(await readSettings(token)).toEqual(before);
  });

  it("changes only the calling agency's settings", async () => {
    const a = await setupAgency("Agency A");
    const b = await setupAgency("Agency B");
    const before = await readSettings(b.token);
    const res = await patchSettings(a.token, {
      agency_name: "A renamed",
      calling_timezone: "Europe/Berlin",
      calling_hours: { start: "10:00", end: "16:00" },
      booking: { buffer_minutes: 20 },
      voice: { max_call_minutes: 3 },
    });
    expect(res.status).toBe(200);
    expect(await readSettings(b.token)).toEqual(before);
  });

  it("requires the settings scope", async () => {
    const { agencyUuid, token } = await setupAgency();
    const before = await readSettings(token);
    await expectScopeRequired(agencyUuid, "PATCH", "/settings", "settings", { body: { agency_name: "X" } });
    expect(await readSettings(token)).toEqual(before);
  });
});

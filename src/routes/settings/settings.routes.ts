import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { SettingsResponse, UpdateSettingsBody, settingsMessages } from "./settings.schemas";

const TAGS: ["Settings"] = ["Settings"];

const appliesNote =
  "Every setting is in force from the next request on. `calling_timezone` and `calling_hours`: `POST /voice-ai/calls` " +
  "dials only inside the window (a call due outside it is held until the next opening, status `scheduled` with " +
  "`dispatch_at`; a `scheduled_at` outside it is 400), checked again when each call is dialed; `scheduled_at` without " +
  "an offset is read in the calling timezone. `voice`: the default agent of calls that name none, the maximum call " +
  "length and the voicemail behaviour, the last two read when a call is dialed. `booking`: " +
  "`GET /calendar/availability`, `POST /calendar/bookings` and reschedules (`PATCH /appointments/{appointment_uuid}`) " +
  "offer and accept only slots that start at least `min_notice_minutes` from now and keep `buffer_minutes` free " +
  "around other appointments of the calendar; `default_slot_minutes` is the slot length of calendars whose hours set " +
  "none (`PUT /calendar/hours`).";

const secretsNote =
  "Secrets (OAuth tokens of connected calendars and providers, API credentials) are stored apart from settings and " +
  "are never returned by any route of this API.";

export const getSettings = partnerRoute({
  method: "get",
  path: "/settings",
  operationId: "getSettings",
  tags: TAGS,
  summary: "Get curated settings",
  description:
    "Returns the agency's curated settings: `agency_name`, `calling_timezone` (IANA), `calling_hours` (the daily " +
    "window in which Voice AI calls are dialed, local to the calling timezone), `booking` rules and `voice` " +
    "defaults. Settings the agency never changed show their defaults, which are in force like any other: calling " +
    "hours 09:00 to 20:00 every day, 30-minute slots, no buffer, 60 minutes' notice, no default voice agent, " +
    "10-minute calls, hang up on voicemail. " +
    appliesNote + " " + secretsNote,
  scopes: ["settings"],
  responses: { 200: jsonContent(SettingsResponse, "The settings, defaults applied.") },
});

export const updateSettings = partnerRoute({
  method: "patch",
  path: "/settings",
  operationId: "updateSettings",
  tags: TAGS,
  summary: "Patch curated settings",
  description:
    "Changes any subset of the settings; everything not sent is kept. `booking` and `voice` merge key by key; " +
    "`calling_hours` takes both `start` and `end` (`HH:MM`; `end` may be `24:00`; an `end` before the `start` runs " +
    "past midnight) and optionally `days`. `calling_timezone` must be an IANA name such as `America/Chicago`. " +
    "`voice.default_voice_agent_uuid` must be an active Voice AI agent of your agency (`null` clears it). Unknown " +
    "fields, at any level, are 400. Answers with all settings after the change; an empty body changes nothing. " +
    appliesNote + " " + secretsNote,
  scopes: ["settings"],
  request: { body: jsonBody(UpdateSettingsBody) },
  errorExamples: { 400: { error: settingsMessages.timezone } },
  responses: { 200: jsonContent(SettingsResponse, "The settings after the change, defaults applied.") },
});

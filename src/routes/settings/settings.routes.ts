import { jsonBody, jsonContent, partnerRoute } from "@/lib/openapi";
import { SettingsResponse, UpdateSettingsBody, settingsMessages } from "./settings.schemas";

const TAGS: ["Settings"] = ["Settings"];

const appliesNote =
  "`calling_hours`, `booking` and `voice` are agency preferences stored for the dashboard and the agency's own tools; " +
  "the Partner API's Voice AI and calendar endpoints do not apply them today. Calls use the request's " +
  "`voice_agent_uuid` or the agency's oldest active agent (`GET /voice-ai/agents`), and are not held to calling hours, " +
  "a call length or a voicemail choice from settings; availability and bookings follow the calendar's hours and " +
  "`slot_minutes` (`PUT /calendar/hours`), with no buffer or minimum notice beyond starting after now. " +
  "`calling_timezone` does apply: a Voice AI call's `scheduled_at` without an offset is read in it.";

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
    "window the agency wants for outbound calls, local to the calling timezone), `booking` preferences and `voice` " +
    "preferences. Settings the agency never changed show their defaults: calling hours 09:00 to 20:00, 30-minute " +
    "slots, no buffer, 60 minutes' notice, no default voice agent, 10-minute calls, hang up on voicemail. " +
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
    "`calling_hours` takes both `start` and `end` (`HH:MM`, `start` before `end`). `calling_timezone` must be an " +
    "IANA name such as `America/Chicago`. `voice.default_voice_agent_uuid` must be a Voice AI agent of your agency " +
    "(`null` clears it). Unknown fields, at any level, are 400. Answers with all settings after the change; an empty " +
    "body changes nothing. " + appliesNote + " " + secretsNote,
  scopes: ["settings"],
  request: { body: jsonBody(UpdateSettingsBody) },
  errorExamples: { 400: { error: settingsMessages.timezone } },
  responses: { 200: jsonContent(SettingsResponse, "The settings after the change, defaults applied.") },
});

import { jsonBody, jsonContent, partnerRoute } from "@/lib/openapi";
import { SettingsResponse, UpdateSettingsBody, settingsMessages } from "./settings.schemas";

const TAGS: ["Settings"] = ["Settings"];

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
    "window for outbound calls, local to the calling timezone), `booking` defaults and `voice` defaults. Settings " +
    "the agency never changed show their defaults: calling hours 09:00 to 20:00, 30-minute slots, no buffer, " +
    "60 minutes' notice, no default voice agent, 10-minute calls, hang up on voicemail. " + secretsNote,
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
    "body changes nothing. " + secretsNote,
  scopes: ["settings"],
  request: { body: jsonBody(UpdateSettingsBody) },
  errorExamples: { 400: { error: settingsMessages.timezone } },
  responses: { 200: jsonContent(SettingsResponse, "The settings after the change, defaults applied.") },
});

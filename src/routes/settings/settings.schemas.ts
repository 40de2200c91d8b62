import { z } from "@hono/zod-openapi";
import { uuidField } from "@/lib/ids";
import { documentedNullable } from "@/lib/openapi";
import { isIanaTimezone } from "@/lib/time";

export const voicemailBehaviors = ["hang_up", "leave_message"] as const;

export const MAX_AGENCY_NAME_LENGTH = 200;
export const limits = {
  defaultSlotMinutes: { min: 5, max: 480 },
  bufferMinutes: { min: 0, max: 240 },
  minNoticeMinutes: { min: 0, max: 43_200 },
  maxCallMinutes: { min: 1, max: 60 },
} as const;

/** What an agency gets until it changes a setting; applied on every read. */
export const DEFAULT_SETTINGS = {
  calling_hours: { start: "09:00", end: "20:00" },
  booking: { default_slot_minutes: 30, buffer_minutes: 0, min_notice_minutes: 60 },
  voice: { default_voice_agent_uuid: null as string | null, max_call_minutes: 10, voicemail_behavior: "hang_up" as (typeof voicemailBehaviors)[number] },
};

const range = (name: string, { min, max }: { min: number; max: number }) => `${name} must be a whole number from ${min} to ${max}`;

export const settingsMessages = {
  agencyName: `agency_name must be 1 to ${MAX_AGENCY_NAME_LENGTH} characters`,
  timezone: "calling_timezone must be an IANA time zone such as America/New_York",
  time: (name: string) => `calling_hours.${name} must be a time of day HH:MM from 00:00 to 23:59`,
  hoursOrder: "calling_hours.start must be before calling_hours.end",
  defaultSlotMinutes: range("booking.default_slot_minutes", limits.defaultSlotMinutes),
  bufferMinutes: range("booking.buffer_minutes", limits.bufferMinutes),
  minNoticeMinutes: range("booking.min_notice_minutes", limits.minNoticeMinutes),
  maxCallMinutes: range("voice.max_call_minutes", limits.maxCallMinutes),
  voicemailBehavior: `voice.voicemail_behavior must be one of: ${voicemailBehaviors.join(", ")}`,
  unknownVoiceAgent: "voice.default_voice_agent_uuid is not a Voice AI agent of this agency",
} as const;

const exampleAgentUuid = "7e3b9c1a-2d4f-4a6b-8c0d-1e2f3a4b5c6d";

const settingsExample = {
  agency_name: "Acme Realty",
  calling_timezone: "America/New_York",
  calling_hours: { start: "09:00", end: "20:00" },
  booking: { default_slot_minutes: 30, buffer_minutes: 10, min_notice_minutes: 120 },
  voice: { default_voice_agent_uuid: exampleAgentUuid, max_call_minutes: 15, voicemail_behavior: "leave_message" as const },
  updated_at: "2026-11-20T14:05:00.000Z",
};

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const timeOfDay = (name: "start" | "end", example: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `calling_hours.${name} is required` : settingsMessages.time(name)) })
    .regex(HHMM, settingsMessages.time(name))
    .openapi({ description: `Local time of day, \`HH:MM\` (24-hour) in the calling timezone.`, example });

const wholeNumber = (message: string, { min, max }: { min: number; max: number }, description: string, example: number) =>
  z
    .number({ error: message })
    .int(message)
    .min(min, message)
    .max(max, message)
    .openapi({ description: `${description} Whole number from ${min} to ${max}.`, example });

const CallingHours = z
  .object({ start: timeOfDay("start", "09:00"), end: timeOfDay("end", "20:00") })
  .openapi("CallingHours", {
    description:
      "The daily window, in the calling timezone, in which the agency wants outbound calls placed. A stored preference " +
      "for the dashboard and the agency's own tools: `POST /voice-ai/calls` does not enforce it today.",
    example: { start: "09:00", end: "20:00" },
  });

const BookingDefaults = z
  .object({
    default_slot_minutes: z
      .number()
      .int()
      .openapi({ description: "Preferred slot length, in minutes. Not applied by bookings: they use the calendar's `slot_minutes` (`PUT /calendar/hours`)." }),
    buffer_minutes: z
      .number()
      .int()
      .openapi({ description: "Preferred free minutes between two bookings. Not applied by bookings, which keep no buffer." }),
    min_notice_minutes: z
      .number()
      .int()
      .openapi({ description: "Preferred minimum notice before a slot's start, in minutes. Not applied by bookings: any slot that starts after now can be booked." }),
  })
  .openapi("BookingDefaults", {
    description:
      "Booking preferences stored for the dashboard and the agency's own tools. The Partner API's calendar endpoints do " +
      "not apply them today: availability and bookings follow the calendar's hours and `slot_minutes` (`PUT /calendar/hours`).",
    example: settingsExample.booking,
  });

const VoiceDefaults = z
  .object({
    default_voice_agent_uuid: z
      .string()
      .nullable()
      .openapi({
        description:
          "Preferred Voice AI agent; null when not set. Not used by `POST /voice-ai/calls`, which takes the request's " +
          "`voice_agent_uuid` or else the agency's oldest active agent (`GET /voice-ai/agents`).",
      }),
    max_call_minutes: z
      .number()
      .int()
      .openapi({ description: "Preferred longest call, in minutes. Not applied: calls are not capped by this setting." }),
    voicemail_behavior: z
      .enum(voicemailBehaviors)
      .openapi({ description: "Preferred handling of voicemail: `hang_up` or `leave_message`. Not applied to Partner API calls today." }),
  })
  .openapi("VoiceDefaults", {
    description:
      "Voice AI preferences stored for the dashboard and the agency's own tools. The Partner API's Voice AI endpoints do " +
      "not apply them today; the agents they use are listed by `GET /voice-ai/agents`.",
    example: settingsExample.voice,
  });

export const Settings = z
  .object({
    agency_name: z.string().openapi({ description: "The agency's display name." }),
    calling_timezone: z
      .string()
      .openapi({
        description:
          "IANA time zone of the agency: `calling_hours` are wall-clock times in it, and so is a Voice AI call's " +
          "`scheduled_at` sent without an offset.",
      }),
    calling_hours: CallingHours,
    booking: BookingDefaults,
    voice: VoiceDefaults,
    updated_at: z.string().openapi({ description: "When a setting last changed (the agency's creation if never)." }),
  })
  .openapi("Settings", { example: settingsExample });

export const SettingsResponse = z
  .object({ success: z.literal(true), settings: Settings })
  .openapi("SettingsResponse", { example: { success: true, settings: settingsExample } });

const voiceAgentField = uuidField("voice.default_voice_agent_uuid")
  .transform((id) => id.toLowerCase())
  .openapi({
    type: "string",
    format: "uuid",
    description:
      "A Voice AI agent of your agency (`GET /voice-ai/agents`), whatever its status; `null` clears it. Stored only: " +
      "`POST /voice-ai/calls` does not use it.",
    example: exampleAgentUuid,
  });

export const UpdateSettingsBody = z
  .strictObject({
    agency_name: z
      .string({ error: settingsMessages.agencyName })
      .trim()
      .min(1, settingsMessages.agencyName)
      .max(MAX_AGENCY_NAME_LENGTH, settingsMessages.agencyName)
      .optional()
      .openapi({ description: `1 to ${MAX_AGENCY_NAME_LENGTH} characters, trimmed.`, example: "Acme Realty" }),
    calling_timezone: z
      .string({ error: settingsMessages.timezone })
      .refine(isIanaTimezone, settingsMessages.timezone)
      .optional()
      .openapi({ description: "An IANA time zone name (`America/Chicago`); UTC offsets and abbreviations are 400.", example: "America/Chicago" }),
    calling_hours: z
      .strictObject(
        { start: timeOfDay("start", "08:30"), end: timeOfDay("end", "19:00") },
        { error: "calling_hours must be an object with start and end" },
      )
      .refine((h) => h.start < h.end, { message: settingsMessages.hoursOrder, path: ["start"] })
      .optional()
      .openapi({ description: "Both `start` and `end`, `HH:MM`, with `start` before `end` (a window within one day). Stored only; calls are not held to it." }),
    booking: z
      .strictObject(
        {
          default_slot_minutes: wholeNumber(settingsMessages.defaultSlotMinutes, limits.defaultSlotMinutes, "Preferred slot length (not applied to bookings).", 30).optional(),
          buffer_minutes: wholeNumber(settingsMessages.bufferMinutes, limits.bufferMinutes, "Preferred gap between bookings (not applied to bookings).", 10).optional(),
          min_notice_minutes: wholeNumber(settingsMessages.minNoticeMinutes, limits.minNoticeMinutes, "Preferred minimum notice (not applied to bookings).", 120).optional(),
        },
        { error: "booking must be an object" },
      )
      .optional()
      .openapi({ description: "Any subset of the booking preferences; keys not sent are kept. Stored only: bookings follow `PUT /calendar/hours`." }),
    voice: z
      .strictObject(
        {
          default_voice_agent_uuid: voiceAgentField.nullable().optional().openapi(documentedNullable),
          max_call_minutes: wholeNumber(settingsMessages.maxCallMinutes, limits.maxCallMinutes, "Preferred longest call (not applied to calls).", 15).optional(),
          voicemail_behavior: z
            .enum(voicemailBehaviors, { error: settingsMessages.voicemailBehavior })
            .optional()
            .openapi({ description: "`hang_up` or `leave_message`; stored only, not applied to calls.", example: "leave_message" }),
        },
        { error: "voice must be an object" },
      )
      .optional()
      .openapi({ description: "Any subset of the voice preferences; keys not sent are kept. Stored only: Voice AI calls do not apply them." }),
  })
  .openapi("UpdateSettingsRequest", {
    example: {
      calling_timezone: "America/Chicago",
      calling_hours: { start: "08:30", end: "19:00" },
      booking: { buffer_minutes: 10 },
      voice: { voicemail_behavior: "leave_message" },
    },
  });

export type UpdateSettingsInput = z.infer<typeof UpdateSettingsBody>;

/**
 * The JSON kept in agency_settings.settings: only what the agency changed. Read leniently, key by
 * key, so a value that no longer validates falls back to its default instead of failing the read.
 */
const stored = <T extends z.ZodType>(schema: T, fallback: z.infer<T>) => schema.optional().catch(undefined).transform((v) => v ?? fallback);

export const StoredSettings = z.object({
  calling_hours: z
    .object({ start: z.string().regex(HHMM), end: z.string().regex(HHMM) })
    .refine((h) => h.start < h.end)
    .optional()
    .catch(undefined)
    .transform((v) => v ?? DEFAULT_SETTINGS.calling_hours),
  booking: z
    .object({
      default_slot_minutes: stored(z.number().int(), DEFAULT_SETTINGS.booking.default_slot_minutes),
      buffer_minutes: stored(z.number().int(), DEFAULT_SETTINGS.booking.buffer_minutes),
      min_notice_minutes: stored(z.number().int(), DEFAULT_SETTINGS.booking.min_notice_minutes),
    })
    .catch({ ...DEFAULT_SETTINGS.booking }),
  voice: z
    .object({
      default_voice_agent_uuid: stored(z.string().nullable(), DEFAULT_SETTINGS.voice.default_voice_agent_uuid),
      max_call_minutes: stored(z.number().int(), DEFAULT_SETTINGS.voice.max_call_minutes),
      voicemail_behavior: stored(z.enum(voicemailBehaviors), DEFAULT_SETTINGS.voice.voicemail_behavior),
    })
    .catch({ ...DEFAULT_SETTINGS.voice }),
});

import { z } from "@hono/zod-openapi";
import { voicemailBehaviors } from "@/db/schema";
import { boundedInt, instantString, integerFormat, MAX_TIMEZONE_LENGTH, uuidString } from "@/lib/bounded";
import { uuidField } from "@/lib/ids";
import { TIME_OF_DAY_LENGTH } from "@/lib/local-dates";
import { documentedNullable } from "@/lib/openapi";
import { ALL_WEEKDAYS } from "@/lib/calling-window";
import { isIanaTimezone } from "@/lib/time";
import { END_HHMM, HHMM, isEnd, limits } from "@/domain/settings/settings.model";

export const MAX_AGENCY_NAME_LENGTH = 200;

const SUNDAY = 0;
const SATURDAY = 6;


const range = (name: string, { min, max }: { min: number; max: number }) => `${name} must be a whole number from ${min} to ${max}`;

export const settingsMessages = {
  agencyName: `agency_name must be 1 to ${MAX_AGENCY_NAME_LENGTH} characters`,
  timezone: "calling_timezone must be an IANA time zone such as America/New_York",
  start: "calling_hours.start must be a time of day HH:MM from 00:00 to 23:59",
  end: "calling_hours.end must be a time of day HH:MM from 00:01 to 24:00",
  hoursDiffer: "calling_hours.start and calling_hours.end must differ (an end before the start runs past midnight)",
  days: "calling_hours.days must list 1 to 7 different weekdays, 0 (Sunday) to 6 (Saturday)",
  defaultSlotMinutes: `${range("booking.default_slot_minutes", limits.defaultSlotMinutes)}, in steps of 5`,
  bufferMinutes: range("booking.buffer_minutes", limits.bufferMinutes),
  minNoticeMinutes: range("booking.min_notice_minutes", limits.minNoticeMinutes),
  maxCallMinutes: range("voice.max_call_minutes", limits.maxCallMinutes),
  voicemailBehavior: `voice.voicemail_behavior must be one of: ${voicemailBehaviors.join(", ")}`,
  unknownVoiceAgent: "voice.default_voice_agent_uuid is not a Voice AI agent of this agency",
  inactiveVoiceAgent: "voice.default_voice_agent_uuid is not an active Voice AI agent; activate it or choose another",
} as const;

const exampleAgentUuid = "7e3b9c1a-2d4f-4a6b-8c0d-1e2f3a4b5c6d";

const settingsExample = {
  agency_name: "Acme Realty",
  calling_timezone: "America/New_York",
  calling_hours: { start: "09:00", end: "19:00", days: [1, 2, 3, 4, 5] },
  booking: { default_slot_minutes: 30, buffer_minutes: 10, min_notice_minutes: 120 },
  voice: { default_voice_agent_uuid: exampleAgentUuid, max_call_minutes: 15, voicemail_behavior: "leave_message" as const },
  updated_at: "2026-11-20T14:05:00.000Z",
};


/** Documents what HHMM and isEnd enforce: `HH:MM`. */
const timeOfDay = { minLength: TIME_OF_DAY_LENGTH, maxLength: TIME_OF_DAY_LENGTH };

const requiredTime = (name: "start" | "end", message: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `calling_hours.${name} is required` : message) });

const CALLING_HOURS_APPLY =
  "`POST /voice-ai/calls` dials only inside this window: a call due outside it is accepted and held until the next " +
  "opening (status `scheduled`, with `dispatch_at`), and an explicit `scheduled_at` outside it is 400. Changing the " +
  "window (or the timezone) moves calls held for it to the new next opening, and every call is checked again when it " +
  "is dialed; a retry after a failed dial waits for the window too.";

const weekdays = z
  .array(
    z.number({ error: settingsMessages.days }).int(settingsMessages.days).min(SUNDAY, settingsMessages.days).max(SATURDAY, settingsMessages.days),
    { error: settingsMessages.days },
  )
  .min(1, settingsMessages.days)
  .max(ALL_WEEKDAYS.length, settingsMessages.days)
  .refine((days) => new Set(days).size === days.length, settingsMessages.days)
  .transform((days) => [...days].sort((a, b) => a - b));

const wholeNumber = (message: string, { min, max }: { min: number; max: number }, description: string, example: number) =>
  z
    .number({ error: message })
    .int(message)
    .min(min, message)
    .max(max, message)
    .openapi({ description: `${description} Whole number from ${min} to ${max}.`, format: integerFormat(min, max), example });

/** A documented setting: a whole number within its limits. */
const limitedInt = ({ min, max }: { min: number; max: number }) => boundedInt(min, max);

const CallingHours = z
  .object({
    start: z.string().regex(HHMM).openapi({ ...timeOfDay, description: "Opening time, `HH:MM` (24-hour), in the calling timezone.", example: "09:00" }),
    end: z.string().regex(END_HHMM).openapi({
      ...timeOfDay,
      description: "Closing time, `HH:MM` or `24:00`. Not after `start` means the window runs past midnight.",
      example: "19:00",
    }),
    days: z.array(boundedInt(SUNDAY, SATURDAY)).min(1).max(ALL_WEEKDAYS.length).openapi({
      description: "Weekdays the window opens on, 0 = Sunday ... 6 = Saturday, in order. A window past midnight belongs to the day it opens.",
      example: [1, 2, 3, 4, 5],
    }),
  })
  .openapi("CallingHours", {
    description: `The daily window, in the calling timezone, in which Voice AI calls are dialed. ${CALLING_HOURS_APPLY}`,
    example: settingsExample.calling_hours,
  });

const BookingDefaults = z
  .object({
    default_slot_minutes: limitedInt(limits.defaultSlotMinutes).openapi({
      description:
        "Slot length, in minutes, of every calendar whose hours set no `slot_minutes` (`PUT /calendar/hours`): its " +
        "availability, its bookings and the length of their appointments.",
    }),
    buffer_minutes: limitedInt(limits.bufferMinutes).openapi({
      description:
        "Free minutes kept around every live appointment of a calendar: no slot starts or ends within this many " +
        "minutes of another booked, completed or no-show appointment of the same calendar.",
    }),
    min_notice_minutes: limitedInt(limits.minNoticeMinutes).openapi({ description: "No slot starts sooner than this many minutes from now." }),
  })
  .openapi("BookingDefaults", {
    description:
      "Booking rules of every calendar of the agency. `GET /calendar/availability` offers only slots that obey them, and " +
      "`POST /calendar/bookings` and a reschedule through `PATCH /appointments/{appointment_uuid}` that break one are 409 " +
      "`This time slot is no longer available.`",
    example: settingsExample.booking,
  });

const VoiceDefaults = z
  .object({
    default_voice_agent_uuid: uuidString().nullable().openapi({
      description:
        "The agent of a `POST /voice-ai/calls` that names neither `voice_agent_uuid` nor `outbound_phone_number_uuid`; " +
        "null: the agency's oldest active agent. While it points to an agent that is inactive or gone, such calls are 400.",
    }),
    max_call_minutes: limitedInt(limits.maxCallMinutes).openapi({
      description:
        "Longest call, in minutes. The voice provider is told to hang up by then (the call ends `completed` with " +
        "`ended_reason` `exceeded-max-duration`), and a call that reports no end within it plus 10 minutes is closed " +
        "`failed`. Read when the call is dialed.",
    }),
    voicemail_behavior: z.enum(voicemailBehaviors).openapi({
      description:
        "What the agent does on reaching voicemail: `hang_up`, or `leave_message` (a short message asking the contact to " +
        "call back). Either way the call ends `failed` with `ended_reason` `voicemail` and costs nothing. Read when the " +
        "call is dialed.",
    }),
  })
  .openapi("VoiceDefaults", {
    description: "Voice AI behaviour of every call the agency places through `POST /voice-ai/calls`.",
    example: settingsExample.voice,
  });

export const Settings = z
  .object({
    agency_name: z.string().max(MAX_AGENCY_NAME_LENGTH).openapi({
      description: "The agency's display name; Voice AI agents give it when they leave a voicemail message (`voice.voicemail_behavior`).",
    }),
    calling_timezone: z
      .string()
      .max(MAX_TIMEZONE_LENGTH)
      .openapi({
        description:
          "IANA time zone of the agency: `calling_hours` are wall-clock times in it, and so is a Voice AI call's " +
          "`scheduled_at` sent without an offset.",
      }),
    calling_hours: CallingHours,
    booking: BookingDefaults,
    voice: VoiceDefaults,
    updated_at: instantString().openapi({ description: "When a setting last changed (the agency's creation if never)." }),
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
      "An active Voice AI agent of your agency (`GET /voice-ai/agents`); `null` clears it (calls then use the oldest " +
      "active agent).",
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
      .max(MAX_TIMEZONE_LENGTH, { error: settingsMessages.timezone, abort: true })
      .refine(isIanaTimezone, settingsMessages.timezone)
      .optional()
      .openapi({ description: "An IANA time zone name (`America/Chicago`); UTC offsets and abbreviations are 400.", example: "America/Chicago" }),
    calling_hours: z
      .strictObject(
        {
          start: requiredTime("start", settingsMessages.start).regex(HHMM, settingsMessages.start).openapi({ ...timeOfDay, example: "08:30" }),
          end: requiredTime("end", settingsMessages.end)
            .refine(isEnd, settingsMessages.end)
            .openapi({ ...timeOfDay, pattern: END_HHMM.source, example: "19:00" }),
          // The transform (sorting) hides the array's shape from the document: state it here.
          days: weekdays.optional().openapi({
            type: "array",
            items: { type: "integer", format: integerFormat(SUNDAY, SATURDAY), minimum: SUNDAY, maximum: SATURDAY },
            minItems: 1,
            maxItems: ALL_WEEKDAYS.length,
            example: [1, 2, 3, 4, 5],
          }),
        },
        { error: "calling_hours must be an object with start and end" },
      )
      .refine((h) => h.start !== h.end, { message: settingsMessages.hoursDiffer, path: ["end"] })
      .optional()
      .openapi({
        description:
          "`start` (`HH:MM`) and `end` (`HH:MM` or `24:00`), both required; an `end` before the `start` runs past " +
          "midnight. `days` (weekdays 0 = Sunday ... 6 = Saturday) is kept when not sent; every day until first set. " +
          CALLING_HOURS_APPLY,
      }),
    booking: z
      .strictObject(
        {
          default_slot_minutes: wholeNumber(settingsMessages.defaultSlotMinutes, limits.defaultSlotMinutes, "Slot length of calendars that set none, in steps of 5.", 30)
            .multipleOf(5, settingsMessages.defaultSlotMinutes)
            .optional(),
          buffer_minutes: wholeNumber(settingsMessages.bufferMinutes, limits.bufferMinutes, "Free minutes around every appointment.", 10).optional(),
          min_notice_minutes: wholeNumber(settingsMessages.minNoticeMinutes, limits.minNoticeMinutes, "Minimum notice before a slot starts.", 120).optional(),
        },
        { error: "booking must be an object" },
      )
      .optional()
      .openapi({ description: "Any subset of the booking rules; keys not sent are kept. They apply from the next request on." }),
    voice: z
      .strictObject(
        {
          default_voice_agent_uuid: voiceAgentField.nullable().optional().openapi(documentedNullable),
          max_call_minutes: wholeNumber(settingsMessages.maxCallMinutes, limits.maxCallMinutes, "Longest call, in minutes.", 15).optional(),
          voicemail_behavior: z
            .enum(voicemailBehaviors, { error: settingsMessages.voicemailBehavior })
            .optional()
            .openapi({ description: "`hang_up` or `leave_message`.", example: "leave_message" }),
        },
        { error: "voice must be an object" },
      )
      .optional()
      .openapi({ description: "Any subset of the voice defaults; keys not sent are kept. Calls read them when they are created and dialed." }),
  })
  .openapi("UpdateSettingsRequest", {
    example: {
      calling_timezone: "America/Chicago",
      calling_hours: { start: "08:30", end: "19:00", days: [1, 2, 3, 4, 5, 6] },
      booking: { buffer_minutes: 10 },
      voice: { voicemail_behavior: "leave_message" },
    },
  });

import { z } from "zod";
import { voicemailBehaviors, type VoicemailBehavior } from "@/db/schema";
import { ALL_WEEKDAYS } from "@/lib/calling-window";

/** A calendar slot (and so an appointment) lasts 5 to 240 minutes; a default slot is one of them. */
export const MIN_SLOT_MINUTES = 5;
export const MAX_SLOT_MINUTES = 240;

/** The bounds of each numeric setting (docs/api-guide.md, settings). */
export const limits = {
  // The calendar's own bounds: a default slot must be a slot `PUT /calendar/hours` could set.
  defaultSlotMinutes: { min: MIN_SLOT_MINUTES, max: MAX_SLOT_MINUTES },
  bufferMinutes: { min: 0, max: 240 },
  minNoticeMinutes: { min: 0, max: 43_200 },
  maxCallMinutes: { min: 1, max: 60 },
} as const;

/** What an agency gets until it changes a setting; applied on every read. */
export const DEFAULT_SETTINGS = {
  calling_hours: { start: "09:00", end: "20:00", days: [...ALL_WEEKDAYS] as number[] },
  booking: { default_slot_minutes: 30, buffer_minutes: 0, min_notice_minutes: 60 },
  voice: { default_voice_agent_uuid: null as string | null, max_call_minutes: 10, voicemail_behavior: "hang_up" as VoicemailBehavior },
};

/** A time of day `HH:MM`, 00:00 to 23:59. */
export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
/** An end of day: any HH:MM but 00:00, or 24:00. */
export const END_HHMM = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const isEnd = (value: string) => END_HHMM.test(value) && value !== "00:00";

/**
 * The JSON kept in agency_settings.settings: only what the agency changed. Read leniently, key by
 * key, so a value that no longer validates falls back to its default instead of failing the read.
 */
const stored = <T extends z.ZodType>(schema: T, fallback: z.infer<T>) => schema.optional().catch(undefined).transform((v) => v ?? fallback);

export const StoredSettings = z.object({
  calling_hours: z
    .object({
      start: z.string().regex(HHMM),
      end: z.string().refine(isEnd),
      days: z.array(z.number().int().min(0).max(6)).min(1).optional(),
    })
    .refine((h) => h.start !== h.end)
    .optional()
    .catch(undefined)
    .transform((v) => (v ? { start: v.start, end: v.end, days: [...new Set(v.days ?? ALL_WEEKDAYS)].sort((a, b) => a - b) } : DEFAULT_SETTINGS.calling_hours)),
  booking: z
    .object({
      default_slot_minutes: stored(
        z.number().int().min(limits.defaultSlotMinutes.min).max(limits.defaultSlotMinutes.max).multipleOf(5),
        DEFAULT_SETTINGS.booking.default_slot_minutes,
      ),
      buffer_minutes: stored(z.number().int().min(limits.bufferMinutes.min).max(limits.bufferMinutes.max), DEFAULT_SETTINGS.booking.buffer_minutes),
      min_notice_minutes: stored(
        z.number().int().min(limits.minNoticeMinutes.min).max(limits.minNoticeMinutes.max),
        DEFAULT_SETTINGS.booking.min_notice_minutes,
      ),
    })
    .catch({ ...DEFAULT_SETTINGS.booking }),
  voice: z
    .object({
      default_voice_agent_uuid: stored(z.string().nullable(), DEFAULT_SETTINGS.voice.default_voice_agent_uuid),
      max_call_minutes: stored(z.number().int().min(limits.maxCallMinutes.min).max(limits.maxCallMinutes.max), DEFAULT_SETTINGS.voice.max_call_minutes),
      voicemail_behavior: stored(z.enum(voicemailBehaviors), DEFAULT_SETTINGS.voice.voicemail_behavior),
    })
    .catch({ ...DEFAULT_SETTINGS.voice }),
});

/**
 * A change of settings, as the route's schema (`UpdateSettingsRequest`) parsed it: the agency's
 * name and timezone are columns; every other section is merged into the stored JSON as sent.
 */
export interface SettingsPatch {
  agency_name?: string;
  calling_timezone?: string;
  [section: string]: unknown;
}

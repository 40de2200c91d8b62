import { MAX_QUEUE_DELAY_SECONDS, secondsUntil } from "@/lib/queues/call-message";
import { describeWindow, isWithinWindow, openingAtOrAfter, type CallingWindow } from "@/lib/calling-window";
import { badRequest } from "@/lib/errors";
import { DAY_MS } from "@/lib/time";
import { parseOffsetInstant, wallClockToUtc, type WallClockResolution } from "@/lib/zoned-time";
import { MAX_SCHEDULE_DAYS, voiceMessages } from "./voice-ai.rules";

export interface CallTiming {
  /** When to dial (UTC, ISO). */
  dueAt: string;
  /** What the partner asked for, resolved to UTC; null for a call placed at once. */
  scheduledAt: string | null;
  /** The next opening of the calling hours when the call is held for them (= `dueAt`); else null. */
  dispatchAt: string | null;
  /** `queued` when the queue can hold it until due (24 h), else `scheduled` for the cron (also while held). */
  status: "queued" | "scheduled";
  /** Seconds until due, as sent to the queue. */
  delaySeconds: number;
}

// UTC offsets in use run from -12:00 to +14:00.
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/i;

/**
 * `scheduled_at` without an offset is wall-clock time in the agency's calling timezone,
 * converted by src/lib/zoned-time.ts: a time in a spring-forward gap moves forward by the gap
 * (02:30 -> 03:30), a time in a fall-back overlap takes the first (earlier) instant. With `Z`
 * or an offset it is that instant.
 */
export function parseScheduledAt(value: string, timezone: string): { utc: Date; resolution: WallClockResolution } {
  if (WITH_OFFSET.test(value)) {
    const instant = parseOffsetInstant(value);
    if (instant === null) throw badRequest(voiceMessages.scheduledFormat);
    return { utc: new Date(instant), resolution: "exact" };
  }
  const resolved = wallClockToUtc(value, timezone);
  if (!resolved) throw badRequest(voiceMessages.scheduledFormat);
  return resolved;
}

/**
 * When a call dials. It is due now, after `delay_seconds`, or at `scheduled_at`; it dials only
 * inside the agency's calling hours: an explicit `scheduled_at` outside them is 400 (the partner
 * chose that time), a call due outside them otherwise is held until the next opening.
 */
export function callTiming(
  input: { delay_seconds?: number | null; scheduled_at?: string | null },
  window: CallingWindow,
  now: number,
): CallTiming {
  let due = now;
  let scheduledAt: string | null = null;
  if (input.scheduled_at != null) {
    const parsed = parseScheduledAt(input.scheduled_at, window.timezone);
    due = parsed.utc.getTime();
    if (due < now) throw badRequest(voiceMessages.scheduledPast);
    if (due > now + MAX_SCHEDULE_DAYS * DAY_MS) throw badRequest(voiceMessages.scheduledTooFar);
    if (!isWithinWindow(window, due)) throw badRequest(voiceMessages.outsideCallingHours(describeWindow(window)));
    scheduledAt = new Date(due).toISOString();
  } else if (input.delay_seconds) {
    due = now + input.delay_seconds * 1000;
    scheduledAt = new Date(due).toISOString();
  }
  const opening = openingAtOrAfter(window, due) ?? due;
  const dispatchAt = opening > due ? new Date(opening).toISOString() : null;
  const delaySeconds = secondsUntil(new Date(opening), now);
  return {
    dueAt: new Date(opening).toISOString(),
    scheduledAt,
    dispatchAt,
    status: dispatchAt === null && delaySeconds <= MAX_QUEUE_DELAY_SECONDS ? "queued" : "scheduled",
    delaySeconds,
  };
}

/**
 * Where calls held for the calling hours go when the hours (or the timezone) change: each to
 * the next opening of the new window from when it was due (never before `now`). Narrower hours move them later, wider ones earlier (an opening of `now` means
 * the cron queues them within a minute); the consumer checks the window again at dial time.
 */
export function rehold(calls: { id: string; scheduledAt: string | null; createdAt: string }[], window: CallingWindow, now: number) {
  return calls.map((call) => {
    const due = Math.max(now, Date.parse(call.scheduledAt ?? call.createdAt));
    return { id: call.id, dispatchAt: new Date(openingAtOrAfter(window, due) ?? due).toISOString() };
  });
}

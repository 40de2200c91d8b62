/**
 * The agency's booking rules (settings `booking`), obeyed alike by availability, bookings and
 * reschedules (docs/decisions/settings-in-force.md). Slot lengths (`default_slot_minutes`) belong
 * to the calendar's hours; these two decide which of its slots may be taken.
 */
export interface BookingRules {
  /** No slot starts sooner than this many minutes from now. */
  min_notice_minutes: number;
  /** No slot starts or ends within this many minutes of another live appointment of its calendar. */
  buffer_minutes: number;
}

/** [start, end) as epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

const MINUTE_MS = 60_000;

/**
 * The earliest instant a slot may start at `now`: the minimum notice ahead, and always after
 * `now` itself (without notice, a slot starting this very millisecond has already begun).
 */
export const earliestStart = (rules: BookingRules, now: number) => now + Math.max(rules.min_notice_minutes * MINUTE_MS, 1);

/** True when a slot starting at `start` gives the notice the rules ask for at `now`. */
export const givesNotice = (rules: BookingRules, start: number, now: number) => start >= earliestStart(rules, now);

/**
 * An interval with the buffer added on both sides. Around a live appointment [a, b) it is the
 * time no slot may touch: a slot [s, e) is unavailable when it overlaps [a - buffer, b + buffer),
 * that is when a - buffer < e and b + buffer > s. Around a slot it is, by the same inequality,
 * the time that must hold no live appointment.
 */
export const withBuffer = (rules: BookingRules, interval: Interval): Interval => ({
  start: interval.start - rules.buffer_minutes * MINUTE_MS,
  end: interval.end + rules.buffer_minutes * MINUTE_MS,
});

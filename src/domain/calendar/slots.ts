import type { WorkingDay } from "@/db/schema";
import { givesNotice, withBuffer, type BookingRules } from "@/lib/booking-rules";
import { dateMs, datesBetween, minutesOfDay, nextDate, previousDate, wallClockInstant, weekdayOf } from "@/lib/local-dates";
import { utcToWallClock, zoneOffset } from "@/lib/zoned-time";

/** A calendar's working hours, with the slot length in force (its own, else the agency's default). */
export interface WorkingHours {
  timezone: string;
  slotMinutes: number;
  days: WorkingDay[];
}

/**
 * Instants are stored as ISO strings with 4-digit years and compared as text (src/lib/time.ts):
 * year 10000 prints as `+010000-...`, which sorts before every other instant. No slot ends
 * after year 9999 (UTC), so none is offered or booked there.
 */
const LAST_SLOT_END = Date.parse("9999-12-31T23:59:59.999Z");

/** One slot: [start, end) as epoch milliseconds. */
export interface Slot {
  start: number;
  end: number;
}

/** A slot with the calendar zone's UTC offset (minutes east of UTC) at its start and its end. */
export interface ZonedSlot extends Slot {
  startOffset: number;
  endOffset: number;
}

/**
 * Every slot of the working hours on one local date, in time order. Each working range is
 * turned into a real (UTC) interval first and then cut into slots of `slotMinutes` elapsed
 * minutes, so a DST change inside a range neither loses nor repeats time: on a
 * spring-forward night the hour that does not exist has no slot, on a fall-back night the
 * hour that happens twice has two (with different UTC instants and offsets). A slot must
 * end by the end of its range, and by the end of year 9999 UTC (LAST_SLOT_END). Slots never overlap.
 */
export function slotsOnDate(hours: WorkingHours, date: string): ZonedSlot[] {
  const weekday = weekdayOf(date);
  const step = hours.slotMinutes * 60_000;
  const candidates: ZonedSlot[] = [];
  for (const range of hours.days) {
    if (range.weekday !== weekday) continue;
    const from = wallClockInstant(date, minutesOfDay(range.start), hours.timezone);
    const to = wallClockInstant(date, minutesOfDay(range.end), hours.timezone);
    if (from === null || to === null) continue;
    // Offsets come from the tz database: asked once per range when both ends agree (no zone
    // changes its offset twice within a day), per slot when a DST change falls inside the range.
    const fromOffset = zoneOffset(hours.timezone, from);
    const steady = fromOffset === zoneOffset(hours.timezone, to);
    const offsetAt = (t: number) => (steady ? fromOffset : zoneOffset(hours.timezone, t));
    for (let t = from; t + step <= to && t + step <= LAST_SLOT_END; t += step) {
      candidates.push({ start: t, end: t + step, startOffset: offsetAt(t), endOffset: offsetAt(t + step) });
    }
  }
  candidates.sort((a, b) => a.start - b.start);
  // Ranges do not overlap in wall-clock time, but a boundary moved by a DST gap could make two
  // of them touch the same real minutes: keep the first slot of any overlapping pair.
  const slots: ZonedSlot[] = [];
  for (const slot of candidates) {
    const last = slots[slots.length - 1];
    if (!last || slot.start >= last.end) slots.push(slot);
  }
  return slots;
}

/** True when [a.start, a.end) and [b.start, b.end) share time. */
export const overlaps = (a: Slot, b: Slot) => a.start < b.end && b.start < a.end;

export interface AvailableDate {
  date: string;
  weekday: number;
  slots: ZonedSlot[];
}

/**
 * Free slots per local date from `from` to `to`: the working hours' slots that the booking
 * rules allow at `now`: they start with the minimum notice, and overlap no live appointment of
 * the calendar widened by the buffer. Dates without a free slot are left out.
 */
export function availableDates(
  hours: WorkingHours,
  range: { from: string; to: string },
  appointments: readonly Slot[],
  rules: BookingRules,
  now: number,
): AvailableDate[] {
  // Blocked intervals by start; one that starts more than the longest blocked length before a
  // slot cannot reach it, so a pointer moving forward skips them (slots come in time order).
  const sorted = appointments.map((a) => withBuffer(rules, a)).sort((a, b) => a.start - b.start);
  const longest = sorted.reduce((max, b) => Math.max(max, b.end - b.start), 0);
  let first = 0;
  const isBusy = (slot: Slot) => {
    while (first < sorted.length && sorted[first]!.start < slot.start - longest) first++;
    for (let i = first; i < sorted.length && sorted[i]!.start < slot.end; i++) if (overlaps(slot, sorted[i]!)) return true;
    return false;
  };
  const result: AvailableDate[] = [];
  for (const date of datesBetween(range.from, range.to)) {
    const free = slotsOnDate(hours, date).filter((slot) => givesNotice(rules, slot.start, now) && !isBusy(slot));
    if (free.length > 0) result.push({ date, weekday: weekdayOf(date), slots: free });
  }
  return result;
}

/**
 * The slot that starts exactly at `start`, if the working hours have one (on its local date
 * or, for a range ending at 24:00 pushed past midnight by DST, the date before).
 */
export function slotStartingAt(hours: WorkingHours, start: number): ZonedSlot | null {
  const date = utcToWallClock(start, hours.timezone).date;
  for (const d of [date, previousDate(date)]) {
    const found = slotsOnDate(hours, d).find((slot) => slot.start === start);
    if (found) return found;
  }
  return null;
}

/**
 * The slot a booking or a reschedule to `start` may take at `now`: a slot of the hours that
 * gives the minimum notice. The buffer around other appointments is checked by the write
 * itself, in the same statement (appointments.repository.ts), so that concurrent bookings
 * cannot both pass it.
 */
export function bookableSlot(hours: WorkingHours, rules: BookingRules, start: number, now: number): ZonedSlot | null {
  const slot = slotStartingAt(hours, start);
  return slot && givesNotice(rules, slot.start, now) ? slot : null;
}

/**
 * UTC offsets in use run from -12:00 to +14:00, so a local midnight falls between 14 hours
 * before and 12 hours after the UTC midnight of its date, and a DST gap moves it later by at
 * most an hour: 14 hours on each side covers every zone.
 */
const ANY_ZONE_MARGIN_MS = 14 * 60 * 60_000;

/**
 * An interval that contains every slot of the local dates `from`..`to` in any zone, for reading
 * busy times before (in the same batch as) the calendar's hours. A range may end at 24:00, which
 * a DST gap can push into the next day: one day of margin after `to`. Past dates, where history
 * has odder offsets, never offer a slot.
 */
export function rangeBoundsInAnyZone(from: string, to: string): Slot {
  return { start: dateMs(from) - ANY_ZONE_MARGIN_MS, end: dateMs(nextDate(nextDate(to))) + ANY_ZONE_MARGIN_MS };
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Lengths of `localIso`: `2026-12-01T09:00:00.000-05:00` is 29 characters; a slot that ends at
 * 24:00 on 9999-12-31 ends at `+010000-01-01T00:00:00.000+13:00`, in ISO's expanded year, 32.
 */
export const LOCAL_ISO_LENGTH = { min: 29, max: 32 };

/** ISO 8601 local time with its offset, e.g. 2026-12-01T09:00:00.000-05:00. */
export function localIso(instant: number, offsetMinutes: number) {
  const wall = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const abs = Math.abs(offsetMinutes);
  return `${wall}${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A slot as the API shows it: UTC instants plus the wall clock in the calendar's zone. */
export function publicSlot(slot: ZonedSlot) {
  const localStart = localIso(slot.start, slot.startOffset);
  const clock = localStart.indexOf("T") + 1;
  return {
    start_at: new Date(slot.start).toISOString(),
    end_at: new Date(slot.end).toISOString(),
    time: localStart.slice(clock, clock + 5),
    local_start: localStart,
    local_end: localIso(slot.end, slot.endOffset),
  };
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export const nowIso = () => new Date().toISOString();

/** The same format for an instant in epoch milliseconds. */
export const isoAt = (ms: number) => new Date(ms).toISOString();

export const DAY_MS = 86_400_000;

export const addDays = (date: Date | number, days: number) => new Date(new Date(date).getTime() + days * DAY_MS);

/** True for a real IANA zone name known to the runtime's Intl data. */
export function isIanaTimezone(value: string): boolean {
  if (!value || value.length > 64) return false;
  // Intl also accepts UTC offsets ("+02:00", ES2024 offset time zones), which are not IANA names.
  if (/^[+-]/.test(value)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

// Stored instants are ISO strings compared as text: keep bounds inside the 4-digit years.
const FIRST_INSTANT = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/** `ms` as a stored ISO instant, clamped to years 0000-9999, for comparing with stored instants as text. */
export const isoWithin = (ms: number) => new Date(Math.min(Math.max(ms, FIRST_INSTANT), LAST_INSTANT)).toISOString();

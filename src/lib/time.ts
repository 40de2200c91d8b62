/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export const nowIso = () => new Date().toISOString();

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

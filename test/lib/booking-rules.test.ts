import { describe, expect, it } from "vitest";
import { earliestStart, givesNotice, withBuffer } from "@/lib/booking-rules";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("booking rules", () => {
  it("puts the earliest start min_notice_minutes after now, and never at now itself", () => {
    const now = at("2026-12-01T14:00:00.000Z");
    expect(iso(earliestStart({ min_notice_minutes: 60, buffer_minutes: 0 }, now))).toBe("2026-12-01T15:00:00.000Z");
    expect(earliestStart({ min_notice_minutes: 0, buffer_minutes: 0 }, now)).toBe(now + 1);
  });

  it("accepts a start exactly at the notice boundary and refuses one a millisecond sooner", () => {
    const rules = { min_notice_minutes: 90, buffer_minutes: 0 };
    const now = at("2026-12-01T14:00:00.000Z");
    expect(givesNotice(rules, at("2026-12-01T15:30:00.000Z"), now)).toBe(true);
    expect(givesNotice(rules, at("2026-12-01T15:29:59.999Z"), now)).toBe(false);
    expect(givesNotice({ min_notice_minutes: 0, buffer_minutes: 0 }, now, now)).toBe(false);
  });

  it("widens an interval by the buffer on both sides", () => {
    const appointment = { start: at("2026-12-01T14:00:00.000Z"), end: at("2026-12-01T14:30:00.000Z") };
    const blocked = withBuffer({ min_notice_minutes: 0, buffer_minutes: 15 }, appointment);
    expect([iso(blocked.start), iso(blocked.end)]).toEqual(["2026-12-01T13:45:00.000Z", "2026-12-01T14:45:00.000Z"]);
    expect(withBuffer({ min_notice_minutes: 0, buffer_minutes: 0 }, appointment)).toEqual(appointment);
  });
});

import { vi } from "vitest";

/**
 * The test's clock. Only `Date` is faked, and the Worker, its Durable Objects and the test run
 * in one isolate, so moving it moves `Date.now()` for the code under test too (timers keep
 * real time, so polling helpers still work). Set it before creating an agency and its key:
 * keys expire 30 days after creation by this clock. Restore it in `afterEach`.
 */
export function setClock(at: number | string | Date) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(at));
}

/** Moves the faked clock forward (or back, with a negative amount). */
export const advanceClock = (ms: number) => vi.setSystemTime(Date.now() + ms);

export const restoreClock = () => vi.useRealTimers();

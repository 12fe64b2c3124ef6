// A clock a test moves by hand, so windows, leases, retries and expiries end without waiting.
import type { Clock } from "../../src/core/ports.ts";

export interface ManualClock extends Clock {
  advance(ms: number): void;
  /** Moves to the start of the next minute (so of every window up to a minute). */
  nextMinute(): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let now = start;
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
    nextMinute: () => {
      now = (Math.floor(now / 60_000) + 1) * 60_000;
    },
  };
}

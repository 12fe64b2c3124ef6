// When a failed delivery is tried again: the configured waits (PAYGATE_WEBHOOK_RETRY_SCHEDULE),
// each stretched or shrunk by up to a fifth at random so that retries of one outage spread out.
export const JITTER = 0.2;

/**
 * The time of the next attempt after `attemptsMade` attempts have failed, or null when the schedule
 * is spent and the event has failed for good. `random` is in [0, 1).
 */
export function nextAttemptAt(now: Date, attemptsMade: number, scheduleMs: readonly number[], random: () => number = Math.random): Date | null {
  const wait = scheduleMs[attemptsMade - 1];
  if (wait === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(wait * factor));
}

// When a delivery is tried again after a failed attempt: the Standard Webhooks schedule, counted from the schedule's start.

const DAY_MS = 86_400_000;
const BACKOFF_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

/**
 * The waits between attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h and 10 h later, and a last attempt 24 h after
 * the first (6 h 24 min 55 s after the one before). Eight attempts within the day the delivery promises; an endpoint
 * down for less than a day still gets the event.
 */
export const RETRY_DELAYS_MS: readonly number[] = [...BACKOFF_MS, DAY_MS - BACKOFF_MS.reduce((sum, delay) => sum + delay, 0)];

/** Each attempt's time from the schedule's start (the delivery's creation, or an admin's retry). */
const ATTEMPT_OFFSETS_MS: readonly number[] = RETRY_DELAYS_MS.map((_, index) =>
  RETRY_DELAYS_MS.slice(0, index + 1).reduce((sum, delay) => sum + delay, 0),
);

/** The last attempt's time from the schedule's start: a delivery still failing then is failed for good. */
export const SCHEDULE_SPAN_MS = ATTEMPT_OFFSETS_MS[ATTEMPT_OFFSETS_MS.length - 1]!;

/**
 * After an attempt at `nowMs` failed: when the next one is due, or undefined when none is left and the delivery is
 * failed. Counted from the schedule's start rather than from the attempt, so an attempt made late (the scheduled
 * function runs every few minutes) skips the slots it missed and the whole stays within SCHEDULE_SPAN_MS.
 */
export function nextAttemptAt(scheduleStartedAtMs: number, nowMs: number): number | undefined {
  for (const offset of ATTEMPT_OFFSETS_MS) {
    if (scheduleStartedAtMs + offset > nowMs) return scheduleStartedAtMs + offset;
  }
  return undefined;
}

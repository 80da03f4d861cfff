// The MFA challenge's numbers as one place: its life, its tries, the clock drift a code may have, and the replay guard's life.
import { TOTP_STEP_SECONDS } from '../../crypto/totp.ts';

/** A challenge (and the half-finished login beside it) lives 5 minutes: time to open the app and type a code, no more. */
export const MFA_CHALLENGE_TTL_SECONDS = 300;

/** Wrong codes one challenge takes; the fifth deletes it, so a sixth attempt is refused even with the right code. */
export const MFA_CHALLENGE_ATTEMPTS = 5;

/** Steps either side of now a code may come from (a phone's clock a little off). */
export const TOTP_DRIFT_STEPS = 1;

/** Added to the replay guard's life: another instance whose clock runs this much behind still finds the code used. */
const REPLAY_GUARD_SKEW_MS = TOTP_STEP_SECONDS * 1000;

/** The longest a replay guard lives: a code of step now+drift, burned at the start of the current step. */
export const TOTP_REPLAY_GUARD_MAX_SECONDS = (2 * TOTP_DRIFT_STEPS + 1) * TOTP_STEP_SECONDS + REPLAY_GUARD_SKEW_MS / 1000;

/**
 * Milliseconds until `step` can no longer verify anywhere: the step is accepted while the current step is within
 * TOTP_DRIFT_STEPS of it, i.e. until (step + drift + 1) × 30 s, plus the skew margin. At least 1 ms.
 */
export function replayGuardTtlMs(step: number, nowMs: number): number {
  return Math.max(1, (step + TOTP_DRIFT_STEPS + 1) * TOTP_STEP_SECONDS * 1000 + REPLAY_GUARD_SKEW_MS - nowMs);
}

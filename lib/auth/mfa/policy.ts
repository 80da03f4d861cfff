// The MFA challenge's numbers as one place: its life, its tries, the clock drift a code may have, and the replay guard's life.
import { TOTP_STEP_SECONDS } from '../../crypto/totp.ts';

// The challenge's TTL and the replay guard's bound are declared with their keys (lib/keys/defs/mfa.ts).
export { MFA_CHALLENGE_TTL_SECONDS, TOTP_REPLAY_GUARD_MAX_SECONDS } from '../../keys/index.ts';

/** Wrong codes one challenge takes; the fifth deletes it, so a sixth attempt is refused even with the right code. */
export const MFA_CHALLENGE_ATTEMPTS = 5;

/** Steps either side of now a code may come from (a phone's clock a little off). */
export const TOTP_DRIFT_STEPS = 1;

/** Added to the replay guard's life: another instance whose clock runs this much behind still finds the code used. */
const REPLAY_GUARD_SKEW_MS = TOTP_STEP_SECONDS * 1000;

/**
 * Milliseconds until `step` can no longer verify anywhere: the step is accepted while the current step is within
 * TOTP_DRIFT_STEPS of it, i.e. until (step + drift + 1) × 30 s, plus the skew margin. At least 1 ms.
 */
export function replayGuardTtlMs(step: number, nowMs: number): number {
  return Math.max(1, (step + TOTP_DRIFT_STEPS + 1) * TOTP_STEP_SECONDS * 1000 + REPLAY_GUARD_SKEW_MS - nowMs);
}

// mfa.burnTotpStep: marks one TOTP step of a user used (the replay guard, registry row mfaTotpUsed), outside a challenge.
import { redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { replayGuardTtlMs } from './policy.ts';

/**
 * One `SET … PX … NX`: true when this call burned the step, false when it was already used. The enrolment confirmation
 * uses it, so the code that confirmed a factor cannot also sign in. atMostOnce: a lost reply leaves the step burned and
 * the caller with a 503; the next code works.
 */
export async function burnTotpStep(deps: Deps, input: { userId: string; step: number }): Promise<boolean> {
  const key = deps.keys.mfaTotpUsed(input.userId, input.step);
  const ttlMs = replayGuardTtlMs(input.step, deps.clock.now());
  const reply = await redisCall('mfa.burnTotpStep', () => deps.redis.atMostOnce.set(key, '1', { px: ttlMs, nx: true }));
  return reply === 'OK';
}

// mfa.peekChallenge: reads a challenge without changing it, so a verification whose challenge is unknown, expired or
// another token's is refused on one Redis read, before PostgreSQL or the secret box (docs/design/mfa.md#mfa-challenges).
import { sha256Hex, timingSafeEqual } from '../../crypto/index.ts';
import { decodeJson, redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { challengeRecord, type ChallengeRecord } from './challenge-record.ts';

/** The challenge the token names, when it exists and the token is its own; undefined otherwise. Redis down throws (503). */
export async function peekChallenge(
  deps: Deps,
  target: { token: string; userId: string; challengeId: string },
): Promise<ChallengeRecord | undefined> {
  const key = deps.keys.mfaChallenge(target.userId, target.challengeId);
  // retrySafe: a read, so a retry is harmless. The answer script checks all of this again, atomically, before it spends.
  const [raw, verifier] = await Promise.all([
    redisCall('mfa.peekChallenge', () => deps.redis.retrySafe.get<string>(key)),
    sha256Hex(target.token),
  ]);
  const challenge = decodeJson(challengeRecord, raw);
  if (challenge === undefined || challenge.userId !== target.userId || !timingSafeEqual(challenge.verifier, verifier)) return undefined;
  return challenge;
}

// mfa.peekChallenge: the per-address counter and a read of the challenge in one request, changing nothing of the
// challenge, so a verification whose challenge is unknown, expired or another token's is refused there, before
// PostgreSQL or the secret box (docs/design/mfa.md#mfa-challenges).
import { sha256Hex, timingSafeEqual } from '../../crypto/index.ts';
import { decodeJson, redisCall, redisReplyError, RedisDefectError, scriptWire } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { THROTTLE_HIT, throttle, throttleOutcome, type IpLimitedAction, type ThrottleOutcome } from '../../runtime/throttle/index.ts';
import { challengeRecord, type ChallengeRecord } from './challenge-record.ts';

export interface PeekedChallenge {
  byIp: ThrottleOutcome;
  /** The challenge the token names, when it exists and the token is its own. */
  challenge: ChallengeRecord | undefined;
}

/**
 * One pipeline: THROTTLE_HIT on the address's counter (platform scope) and GET of the challenge (the user's scope).
 * Two keys of two slots, two commands: a pipeline, not a script. Sent once (atMostOnce: the hit must not count twice);
 * Redis down throws (503), as the verification does anyway. A hit that errs alone lets the caller through, as every
 * throttle fails open. The answer script checks the challenge again, atomically, before it spends anything.
 */
export async function peekChallenge(
  deps: Deps,
  target: {
    token: string;
    userId: string;
    challengeId: string;
    action: IpLimitedAction;
    clientIp: string | undefined;
    correlationId: string;
  },
): Promise<PeekedChallenge> {
  const key = deps.keys.mfaChallenge(target.userId, target.challengeId);
  const [window, verifier] = await Promise.all([throttle.ipWindow(deps, target), sha256Hex(target.token)]);
  const hit = scriptWire(THROTTLE_HIT, { keys: { counter: window.key }, args: { windowTtl: window.ttlSeconds } });
  // EVAL with the body, not EVALSHA: a NOSCRIPT inside a pipeline would cost a second request to recover.
  const replies = await redisCall('mfa.peekChallenge', () =>
    deps.redis.atMostOnce.pipeline().eval(THROTTLE_HIT.source, hit.keys, hit.args).get<unknown>(key).exec({ keepErrors: true }),
  );
  if (!Array.isArray(replies) || replies.length !== 2) throw new Error('mfa.peekChallenge: malformed pipeline reply');
  const [counted, read] = replies as [{ result: unknown; error?: string }, { result: unknown; error?: string }];
  if (read.error !== undefined) throw redisReplyError('mfa.peekChallenge', read.error);
  let byIp: ThrottleOutcome = { allowed: true };
  if (counted.error === undefined) byIp = throttleOutcome(counted.result, window);
  else {
    const failure = redisReplyError('mfa.peekChallenge', counted.error);
    // A defect of ours never opens the throttle: it is a 500 (lib/redis/reply-class.ts).
    if (failure instanceof RedisDefectError) throw failure;
    deps.logger.warn('throttle_unavailable', {
      action: target.action,
      errorKind: 'RedisCommandError',
      correlationId: target.correlationId,
    });
  }
  const challenge = decodeJson(challengeRecord, read.result);
  const valid = challenge !== undefined && challenge.userId === target.userId && timingSafeEqual(challenge.verifier, verifier);
  return { byIp, challenge: valid ? challenge : undefined };
}

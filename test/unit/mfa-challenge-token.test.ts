// The MFA challenge token names its own user and challenge and carries 32 random bytes; anything else reads as "no such
// token", never a throw. The replay guard's TTL ends when its step can no longer verify.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { uuidv7 } from 'uuidv7';
import { base64urlDecode } from '../../lib/crypto/index.ts';
import { issueChallengeToken, readChallengeToken } from '../../lib/auth/mfa/challenge-token.ts';
import { replayGuardTtlMs, TOTP_REPLAY_GUARD_MAX_SECONDS } from '../../lib/auth/mfa/policy.ts';

describe('challenge token', () => {
  it('round-trips the user and challenge ids; two tokens for one challenge differ only in their secret', () => {
    const userId = uuidv7();
    const challengeId = uuidv7();
    const first = issueChallengeToken(userId, challengeId);
    const second = issueChallengeToken(userId, challengeId);
    expect(first).toMatch(/^rsm_[A-Za-z0-9_-]{86}$/);
    expect(first).not.toBe(second);
    expect(readChallengeToken(first)).toEqual({ userId, challengeId });
    expect(readChallengeToken(second)).toEqual({ userId, challengeId });
    const [a, b] = [first, second].map((token) => base64urlDecode(token.slice(4)));
    expect(a!.subarray(0, 32)).toEqual(b!.subarray(0, 32));
    expect(a!.subarray(32)).not.toEqual(b!.subarray(32));
    expect(a!.subarray(32)).toHaveLength(32);
  });

  it('reads ids back in lower case, whatever case they were issued in', () => {
    const userId = uuidv7();
    const challengeId = uuidv7();
    expect(readChallengeToken(issueChallengeToken(userId.toUpperCase(), challengeId))).toEqual({ userId, challengeId });
  });

  it('returns undefined, never throws, for arbitrary input and near misses', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (input) => {
        const read = readChallengeToken(input);
        expect(read === undefined || (typeof read.userId === 'string' && typeof read.challengeId === 'string')).toBe(true);
      }),
    );
    const good = issueChallengeToken(uuidv7(), uuidv7());
    for (const bad of [
      '',
      'rsm_',
      good.slice(0, -1),
      `${good}A`,
      `rsi_${good.slice(4)}`,
      `rsm_${'+'.repeat(86)}`,
      good.replace(/^rsm_/, 'RSM_'),
    ]) {
      expect(readChallengeToken(bad)).toBeUndefined();
    }
  });

  it('refuses ids that are not UUIDs when issuing', () => {
    expect(() => issueChallengeToken('not-a-uuid', uuidv7())).toThrow('invalid UUID');
  });
});

describe('replay guard TTL', () => {
  const step = 57_766_666;
  const stepStart = step * 30_000;

  it('lasts until the step leaves the ±1 window, plus 30 s for instances whose clock runs behind', () => {
    // A code of the current step, burned at the start of it: accepted until step + 2 begins (60 s), plus 30 s.
    expect(replayGuardTtlMs(step, stepStart)).toBe(90_000);
    // A code of the next step, burned at the start of this one: the longest a guard lives.
    expect(replayGuardTtlMs(step + 1, stepStart)).toBe(TOTP_REPLAY_GUARD_MAX_SECONDS * 1000);
    // A code of the previous step, burned at the end of this one.
    expect(replayGuardTtlMs(step - 1, stepStart + 29_999)).toBe(30_001);
  });

  it('is never zero or negative (SET PX refuses those)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 10 }), fc.integer({ min: 0, max: 10 ** 15 }), (s, now) => {
        expect(replayGuardTtlMs(s, now)).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});

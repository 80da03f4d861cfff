// The sign-in policy's rule as sign-in paths ask it before anything is opened, and the enrolment token's shape: it names
// its record, and nothing else (an MFA challenge token, a refresh token, a JWT) reads as one.
import { describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { issueChallengeToken } from '../../lib/auth/mfa/challenge-token.ts';
import { issueEnrolmentToken, readEnrolmentToken } from '../../lib/auth/sign-in-policy/enrolment-token.ts';
import { policyFromRow, policyVerdict, signInPolicySchema } from '../../lib/auth/sign-in-policy/policy.ts';

describe('policyVerdict', () => {
  const open = { requireMfa: false, allowedMethods: ['oidc', 'passkey', 'password'] as const };
  const strict = { requireMfa: true, allowedMethods: ['passkey', 'password'] as const };

  it.each([
    [open, 'password', false, 'allowed'],
    [open, 'oidc', false, 'allowed'],
    [strict, 'oidc', true, 'method-not-allowed'],
    [strict, 'password', false, 'mfa-enrolment-required'],
    [strict, 'password', true, 'allowed'],
    // A passkey is a second factor by itself.
    [strict, 'passkey', false, 'allowed'],
  ] as const)('%o, %s, second factor %s: %s', (policy, method, hasSecondFactor, verdict) => {
    expect(policyVerdict({ ...policy, allowedMethods: [...policy.allowedMethods] }, method, hasSecondFactor)).toBe(verdict);
  });

  it('reads a row in alphabetical order, and no row as the default', () => {
    expect(policyFromRow({ sign_in_require_mfa: true, sign_in_methods: ['password', 'oidc'] })).toEqual({
      requireMfa: true,
      allowedMethods: ['oidc', 'password'],
    });
    expect(policyFromRow({ sign_in_require_mfa: null, sign_in_methods: null })).toEqual({
      requireMfa: false,
      allowedMethods: ['oidc', 'passkey', 'password'],
    });
  });

  it('refuses an empty list, an unknown method and a method twice', () => {
    for (const allowedMethods of [[], ['sms'], ['password', 'password']]) {
      expect(signInPolicySchema.safeParse({ requireMfa: false, allowedMethods }).success).toBe(false);
    }
  });
});

describe('the enrolment token', () => {
  it('names its user and record', () => {
    const userId = uuidv7();
    const enrolmentId = uuidv7();
    const token = issueEnrolmentToken(userId, enrolmentId);
    expect(token).toMatch(/^rse_[A-Za-z0-9_-]{86}$/);
    expect(readEnrolmentToken(token)).toEqual({ userId, enrolmentId });
  });

  it('is not read from an MFA challenge token, a refresh token or a JWT', () => {
    for (const other of [issueChallengeToken(uuidv7(), uuidv7()), `rsr_${'A'.repeat(43)}`, 'eyJhbGciOiJIUzI1NiJ9.e30.sig', 'rse_']) {
      expect(readEnrolmentToken(other)).toBeUndefined();
    }
  });
});

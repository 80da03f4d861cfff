// The sign-in keys between the password and the code: the MFA challenge, the half-finished login, the TOTP replay guard.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { integer, uuid } from '../id-segments.ts';
import { json, marker } from '../key-values.ts';
import { userScope } from '../scopes.ts';

/** A challenge (and the half-finished login beside it) lives 5 minutes: time to open the app and type a code, no more. */
export const MFA_CHALLENGE_TTL_SECONDS = 300;
/**
 * The longest a replay guard lives: a code of step now + 1 (one step of drift), burned at the start of the current
 * step, lives (2 × 1 + 1) × 30 s, plus 30 s for instances whose clocks run behind. lib/runtime/mfa/policy.ts computes
 * each guard's TTL; test/unit/mfa-challenge-token.test.ts holds its largest to this.
 */
export const TOTP_REPLAY_GUARD_MAX_SECONDS = 120;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The challenge: whose it is, the SHA-256 of its token, how many wrong codes it still takes, and the user's credential
 * epoch the password was checked at (migrations/0015: a password change since refuses the challenge's session).
 */
export const challengeRecord = z.lazy(() =>
  z.strictObject({
    challengeId: z.uuid(),
    userId: z.uuid(),
    credentialEpoch: z.number().int().min(0),
    verifier: z.string().regex(HEX64),
    createdAtUtc: z.iso.datetime(),
    expiresAtUtc: z.iso.datetime(),
    attemptsLeft: z.number().int().min(0),
    correlationId: z.string().min(1).max(128),
  }),
);
export type ChallengeRecord = z.infer<typeof challengeRecord>;

/** The half-finished login: what the session will be opened for once the code is right. */
export const sessionStateRecord = z.lazy(() =>
  z.strictObject({
    sessionStateId: z.uuid(),
    organizationId: z.uuid(),
    email: z.string().min(3).max(254),
    /** The OpenID provider whose sign-in was the first step (absent after a password): the session records it. */
    providerId: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/)
      .optional(),
    createdAtUtc: z.iso.datetime(),
    expiresAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);
export type SessionStateRecord = z.infer<typeof sessionStateRecord>;

export const mfaKeys = {
  mfaChallenge: defineKey({
    scope: userScope,
    domain: 'mfa',
    purpose: 'challenge',
    id: [uuid('challengeId')],
    ttl: { seconds: MFA_CHALLENGE_TTL_SECONDS },
    value: json(challengeRecord),
  }),
  mfaTotpUsed: defineKey({
    scope: userScope,
    domain: 'mfa',
    purpose: 'totp-used',
    // The RFC 6238 step (unix seconds / 30), never the code; 11 digits reach far past any clock.
    id: [integer('totpStep', 99_999_999_999, 'a non-negative integer step number')],
    ttl: { maxSeconds: TOTP_REPLAY_GUARD_MAX_SECONDS },
    value: marker,
  }),
  authSessionState: defineKey({
    scope: userScope,
    domain: 'auth',
    purpose: 'session-state',
    id: [uuid('sessionStateId')],
    // As long as the challenge that can finish it.
    ttl: { seconds: MFA_CHALLENGE_TTL_SECONDS },
    value: json(sessionStateRecord),
  }),
};

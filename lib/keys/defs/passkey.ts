// The passkey ceremonies' challenges (lib/auth/passkeys): keyed by the SHA-256 of the challenge, the one value a
// clientDataJSON carries back, under the hash tag of the per-address counters their scripts count beside them.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { digest } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { platformTagScope } from '../scopes.ts';

/** Time to read the browser's prompt and touch the authenticator; WebAuthn's own recommended ceiling is 5 minutes. */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;

/**
 * What a challenge stands for while it lives: its ceremony, the organisation it was issued in and, for a registration,
 * the user who asked (the presenting session's). An enrolment is a registration asked for with a sign-in's enrolment
 * token (lib/auth/sign-in-policy/enrol-passkey.ts): a ceremony of its own, so neither route takes the other's challenge,
 * bound to the token's record. Never the challenge itself (the key is its hash).
 */
export const passkeyChallengeSchema = z.lazy(() =>
  z.discriminatedUnion('ceremony', [
    z.strictObject({
      ceremony: z.literal('registration'),
      userId: z.uuid(),
      // The presenting session's organisation; null for an unbound token (an external identity provider's).
      organizationId: z.uuid().nullable(),
      issuedAtUtc: z.iso.datetime(),
      correlationId: z.string().min(1).max(128),
    }),
    z.strictObject({
      ceremony: z.literal('enrolment'),
      userId: z.uuid(),
      organizationId: z.uuid(),
      // The enrolment record (mfaEnrolment) the token that asked names: only that token's verify takes the challenge.
      enrolmentId: z.uuid(),
      issuedAtUtc: z.iso.datetime(),
      correlationId: z.string().min(1).max(128),
    }),
    z.strictObject({
      ceremony: z.literal('authentication'),
      organizationId: z.uuid(),
      issuedAtUtc: z.iso.datetime(),
      correlationId: z.string().min(1).max(128),
    }),
  ]),
);
export type PasskeyChallenge = z.output<typeof passkeyChallengeSchema>;

export const passkeyKeys = {
  passkeyChallenge: defineKey({
    scope: platformTagScope('passkey'),
    domain: 'auth',
    purpose: 'passkey-challenge',
    id: [digest('challengeDigest', 'sha256Hex(challenge)')],
    ttl: { seconds: PASSKEY_CHALLENGE_TTL_SECONDS },
    value: json(passkeyChallengeSchema),
  }),
};

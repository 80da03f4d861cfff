// The key an organisation's sign-in policy adds: the grant a member without a second factor signs in to where the
// policy requires one, good only for enrolling a factor (docs/design/sign-in-policy.md#the-enrolment-token).
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { uuid } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { userScope } from '../scopes.ts';

/** 10 minutes: time to install an authenticator app (or reach a passkey) and type a first code, no more. */
export const MFA_ENROLMENT_TTL_SECONDS = 600;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The half-finished sign-in an enrolment token stands for: who proved what (the first step's method and provider), the
 * credential epoch it was checked at, and the SHA-256 of the token (the token itself is shown once and never stored).
 */
export const enrolmentRecord = z.lazy(() =>
  z.strictObject({
    enrolmentId: z.uuid(),
    userId: z.uuid(),
    organizationId: z.uuid(),
    email: z.string().min(3).max(254),
    credentialEpoch: z.number().int().min(0),
    /** The first step: a password, or an OpenID provider's sign-in (then `providerId`). */
    firstStep: z.enum(['password', 'oidc']),
    providerId: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/)
      .optional(),
    verifier: z.string().regex(HEX64),
    createdAtUtc: z.iso.datetime(),
    expiresAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);
export type EnrolmentRecord = z.infer<typeof enrolmentRecord>;

export const signInPolicyKeys = {
  mfaEnrolment: defineKey({
    scope: userScope,
    domain: 'mfa',
    purpose: 'enrolment',
    id: [uuid('enrolmentId')],
    ttl: { seconds: MFA_ENROLMENT_TTL_SECONDS },
    value: json(enrolmentRecord),
  }),
};

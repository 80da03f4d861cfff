// Request and response schemas of the auth routes.
import * as z from 'zod';
import { MAX_PASSWORD_LENGTH } from '../../lib/auth/password.ts';
import { emailInput, uuidId } from '../../lib/http/route-schemas.ts';

export const signInBody = z.strictObject({
  organizationId: uuidId,
  email: emailInput,
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});

export const refreshBody = z.strictObject({ refreshToken: z.string().min(1).max(256) });

export const sessionTokensSchema = z.object({
  status: z.literal('signed-in'),
  tokenType: z.literal('Bearer'),
  accessToken: z.string().describe('A JWT; send it as Authorization: Bearer. Shown once.'),
  expiresInSeconds: z.number().int(),
  refreshToken: z.string().describe('Opaque, single use: exchange it at POST /auth/refresh for the next pair. Shown once.'),
  userId: z.uuid(),
  organizationId: z.uuid(),
  sessionExpiresAtUtc: z.iso.datetime(),
});

/** A user with a confirmed TOTP factor: no tokens yet, a challenge to answer at POST /auth/mfa/verify. */
export const mfaRequiredSchema = z.object({
  status: z.literal('mfa-required'),
  challengeToken: z.string().describe('Opaque, single use, for POST /auth/mfa/verify with the current TOTP code. Shown once.'),
  expiresInSeconds: z.number().int(),
});

/**
 * A member without a second factor, signing in to an organisation that requires one: no tokens yet, a token that can
 * only enrol a factor (POST /auth/mfa/enrolment/totp, then …/confirm), which then opens the session.
 */
export const mfaEnrolmentRequiredSchema = z.object({
  status: z.literal('mfa-enrolment-required'),
  enrolmentToken: z
    .string()
    .describe(
      'Opaque; good only for enrolling a second factor, then single use where it opens the session; never a bearer token. Shown once.',
    ),
  expiresInSeconds: z.number().int(),
});

export const signInResponseSchema = z.discriminatedUnion('status', [sessionTokensSchema, mfaRequiredSchema, mfaEnrolmentRequiredSchema]);

export const jwksSchema = z.object({ keys: z.array(z.record(z.string(), z.string())) });

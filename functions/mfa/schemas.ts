// Request and response schemas of the MFA routes.
import * as z from 'zod';
import { MAX_PASSWORD_LENGTH } from '../../lib/auth/password.ts';

export const enrolResponse = z.object({
  secret: z.string().describe('The TOTP secret, base32 (RFC 4648), for an authenticator app. Shown once.'),
  otpauthUri: z.string().describe('The same secret as an otpauth://totp/ URI (for a QR code): SHA1, 6 digits, 30 s. Shown once.'),
});

// A code of the wrong shape is a wrong code (the one MFA answer), not a validation failure that tells them apart.
const code = z.string().min(1).max(16).describe('The 6-digit code the authenticator app shows now');
// The same for a recovery code: any spelling is looked at, and one that is not a code is a wrong one.
const recoveryCode = z.string().min(1).max(32).describe('One of the recovery codes shown at confirmation (xxxxx-xxxxx); each works once');
// Required when the account has a password; an account without one (an OIDC user's) proves a sign-in of the last 10 minutes instead.
const password = z
  .string()
  .min(1)
  .max(MAX_PASSWORD_LENGTH)
  .optional()
  .describe("The account's password; required when it has one (without one: a sign-in of the last 10 minutes)");

export const enrolBody = z.strictObject({ password });

export const confirmBody = z.strictObject({ code });

export const recoveryCodesResponse = z.object({
  recoveryCodes: z
    .array(z.string())
    .describe('Ten single-use recovery codes (xxxxx-xxxxx), shown this once; each replaces a TOTP code at POST /auth/mfa/recover'),
});

export const verifyBody = z.strictObject({
  challengeToken: z.string().min(1).max(256).describe('From the mfa-required answer of POST /auth/login'),
  code,
});

export const recoverBody = z.strictObject({
  challengeToken: z.string().min(1).max(256).describe('From the mfa-required answer of POST /auth/login'),
  recoveryCode,
});

export const replaceCodesBody = z.strictObject({ password, code });

// Exactly one of the two second-factor proofs.
export const removeBody = z.union([z.strictObject({ password, code }), z.strictObject({ password, recoveryCode })]);

const enrolmentToken = z
  .string()
  .min(1)
  .max(256)
  .describe('From the mfa-enrolment-required answer of a sign-in (POST /auth/login, the OIDC callback)');

export const enrolWithTokenBody = z.strictObject({ enrolmentToken });

export const confirmWithTokenBody = z.strictObject({ enrolmentToken, code });

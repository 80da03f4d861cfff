// Request and response schemas of the MFA routes.
import * as z from 'zod';

export const enrolResponse = z.object({
  secret: z.string().describe('The TOTP secret, base32 (RFC 4648), for an authenticator app. Shown once.'),
  otpauthUri: z.string().describe('The same secret as an otpauth://totp/ URI (for a QR code): SHA1, 6 digits, 30 s. Shown once.'),
});

// A code of the wrong shape is a wrong code (the one MFA answer), not a validation failure that tells them apart.
const code = z.string().min(1).max(16).describe('The 6-digit code the authenticator app shows now');

export const confirmBody = z.strictObject({ code });

export const verifyBody = z.strictObject({
  challengeToken: z.string().min(1).max(256).describe('From the mfa-required answer of POST /auth/login'),
  code,
});

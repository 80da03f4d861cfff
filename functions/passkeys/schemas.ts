// Request and response schemas of the passkey routes.
import * as z from 'zod';
import { MAX_PASSWORD_LENGTH } from '../../lib/auth/password.ts';
import { authenticationResponseSchema, registrationResponseSchema } from '../../lib/auth/passkeys/ceremony-response.ts';
import { passkeyViewSchema } from '../../lib/auth/passkeys/passkey-view.ts';
import { uuidId } from '../../lib/http/route-schemas.ts';

/** The step-up of MFA enrolment (docs/design/mfa.md#step-up), plus the factor's code where the account has one. */
export const stepUpBody = z.strictObject({
  password: z
    .string()
    .min(1)
    .max(MAX_PASSWORD_LENGTH)
    .optional()
    .describe("The account's password; required when it has one (without one: a sign-in of the last 10 minutes)"),
  code: z.string().min(1).max(16).optional().describe('A current TOTP code; required when the account has a confirmed TOTP factor'),
});

const name = z.string().trim().min(1).max(64).describe('A name for the passkey, 1–64 characters (e.g. the device)');

export const registrationVerifyBody = z.strictObject({
  response: registrationResponseSchema.describe('What navigator.credentials.create() gave, serialised as @simplewebauthn/browser does'),
  name: name.optional(),
});

const enrolmentToken = z
  .string()
  .min(1)
  .max(256)
  .describe('From the mfa-enrolment-required answer of a sign-in (POST /auth/login, the OIDC callback)');

export const enrolmentOptionsBody = z.strictObject({ enrolmentToken });

export const enrolmentVerifyBody = z.strictObject({
  enrolmentToken,
  response: registrationResponseSchema.describe('What navigator.credentials.create() gave, serialised as @simplewebauthn/browser does'),
  name: name.optional(),
});

export const renameBody = z.strictObject({ name });

export const passkeyParams = z.strictObject({ passkeyId: uuidId });

export const authenticationOptionsBody = z.strictObject({ organizationId: uuidId });

export const authenticationVerifyBody = z.strictObject({
  organizationId: uuidId,
  response: authenticationResponseSchema.describe('What navigator.credentials.get() gave, serialised as @simplewebauthn/browser does'),
});

export const passkeyResponse = z.object({ passkey: passkeyViewSchema });
export const passkeysResponse = z.object({ passkeys: z.array(passkeyViewSchema) });

/** The options as WebAuthn's JSON forms: handed to the browser as they are (@simplewebauthn/browser takes them). */
export const creationOptionsResponse = z
  .object({ challenge: z.string(), rp: z.object({ id: z.string().optional(), name: z.string() }) })
  .loose()
  .describe('PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3)');
export const requestOptionsResponse = z
  .object({ challenge: z.string(), rpId: z.string().optional(), userVerification: z.string().optional() })
  .loose()
  .describe('PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3), without allowCredentials');

// Route definitions (OpenAPI) of the MFA function: enrol a TOTP factor, confirm it, answer a sign-in challenge with a
// code or a recovery code, replace the recovery codes, remove the factor.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';
import {
  confirmBody,
  confirmWithTokenBody,
  enrolWithTokenBody,
  enrolBody,
  enrolResponse,
  recoverBody,
  recoveryCodesResponse,
  removeBody,
  replaceCodesBody,
  verifyBody,
} from './schemas.ts';

const signedInWithRecoveryCodes = sessionTokensSchema.extend(recoveryCodesResponse.shape);

export const enrolRoute = defineRoute({
  method: 'post',
  path: '/enrol',
  summary: "Start (or restart) the caller's TOTP enrolment, with the password: a fresh secret, pending until a first code confirms it",
  request: { body: jsonBody(enrolBody) },
  errors: ['FORBIDDEN', 'REAUTH_FAILED', 'MFA_ALREADY_ENROLLED', 'RATE_LIMITED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'the secret, shown once', ...jsonContent(enrolResponse) } },
});

export const confirmRoute = defineRoute({
  method: 'post',
  path: '/enrol/confirm',
  summary: 'Confirm the pending TOTP factor with a first code; from then on sign-in asks for a code. Answers the recovery codes',
  noStore: true,
  request: { body: jsonBody(confirmBody) },
  errors: ['MFA_CODE_INVALID', 'NOT_FOUND', 'MFA_ALREADY_ENROLLED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'confirmed; the recovery codes, shown once', ...jsonContent(recoveryCodesResponse) } },
});

export const verifyRoute = defineRoute({
  method: 'post',
  path: '/verify',
  summary: "Answer a sign-in's MFA challenge with the current TOTP code",
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(verifyBody) },
  errors: ['MFA_INVALID', 'INVALID_CREDENTIALS', 'TENANT_SUSPENDED', 'SIGN_IN_METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'signed in', ...jsonContent(sessionTokensSchema) } },
});

export const recoverRoute = defineRoute({
  method: 'post',
  path: '/recover',
  summary: "Answer a sign-in's MFA challenge with a recovery code (each works once), when the authenticator app is lost",
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(recoverBody) },
  errors: ['MFA_INVALID', 'INVALID_CREDENTIALS', 'TENANT_SUSPENDED', 'SIGN_IN_METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'signed in', ...jsonContent(sessionTokensSchema) } },
});

export const replaceCodesRoute = defineRoute({
  method: 'post',
  path: '/recovery-codes',
  summary: 'Replace the recovery codes with ten new ones (password and a current TOTP code); the old ones stop working',
  noStore: true,
  request: { body: jsonBody(replaceCodesBody) },
  errors: ['REAUTH_FAILED', 'NOT_FOUND', 'FORBIDDEN', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the new recovery codes, shown once', ...jsonContent(recoveryCodesResponse) } },
});

export const removeRoute = defineRoute({
  method: 'delete',
  path: '/',
  summary: "Remove the caller's TOTP factor and its recovery codes (password and a TOTP or a recovery code)",
  request: { body: jsonBody(removeBody) },
  errors: ['REAUTH_FAILED', 'NOT_FOUND', 'FORBIDDEN', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'removed' } },
});

export const enrolWithTokenRoute = defineRoute({
  method: 'post',
  path: '/enrolment/totp',
  summary:
    'Start (or restart) a TOTP enrolment with the enrolment token of a sign-in to an organisation that requires MFA: a fresh secret, pending until its first code',
  auth: 'none',
  request: { body: jsonBody(enrolWithTokenBody) },
  errors: ['ENROLMENT_INVALID', 'MFA_ALREADY_ENROLLED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'the secret, shown once', ...jsonContent(enrolResponse) } },
});

export const confirmWithTokenRoute = defineRoute({
  method: 'post',
  path: '/enrolment/totp/confirm',
  summary:
    "Confirm the factor started with an enrolment token with its first code; this spends the token and opens the sign-in's session. Answers the tokens and the recovery codes",
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(confirmWithTokenBody) },
  errors: [
    'ENROLMENT_INVALID',
    'MFA_CODE_INVALID',
    'NOT_FOUND',
    'MFA_ALREADY_ENROLLED',
    'SIGN_IN_METHOD_NOT_ALLOWED',
    'TENANT_SUSPENDED',
    'STORE_UNAVAILABLE',
  ],
  responses: {
    200: { description: 'confirmed and signed in; the recovery codes shown once', ...jsonContent(signedInWithRecoveryCodes) },
  },
});

// Route definitions (OpenAPI) of the MFA function: enrol a TOTP factor, confirm it, answer a sign-in challenge.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';
import { confirmBody, enrolResponse, verifyBody } from './schemas.ts';

export const enrolRoute = defineRoute({
  method: 'post',
  path: '/enrol',
  summary: "Start (or restart) the caller's TOTP enrolment: a fresh secret, pending until a first code confirms it",
  errors: ['FORBIDDEN', 'MFA_ALREADY_ENROLLED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'the secret, shown once', ...jsonContent(enrolResponse) } },
});

export const confirmRoute = defineRoute({
  method: 'post',
  path: '/enrol/confirm',
  summary: 'Confirm the pending TOTP factor with a first code; from then on sign-in asks for a code',
  request: { body: jsonBody(confirmBody) },
  errors: ['MFA_CODE_INVALID', 'NOT_FOUND', 'MFA_ALREADY_ENROLLED', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'confirmed' } },
});

export const verifyRoute = defineRoute({
  method: 'post',
  path: '/verify',
  summary: "Answer a sign-in's MFA challenge with the current TOTP code",
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(verifyBody) },
  errors: ['MFA_INVALID', 'TENANT_SUSPENDED', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'signed in', ...jsonContent(sessionTokensSchema) } },
});

// Route definitions (OpenAPI) of the passkey function: register (options, verify), list, rename, remove, sign in with a
// passkey (options, verify), and enrol one with a sign-in's enrolment token (options, verify).
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';
import {
  authenticationOptionsBody,
  authenticationVerifyBody,
  creationOptionsResponse,
  enrolmentOptionsBody,
  enrolmentVerifyBody,
  passkeyParams,
  passkeyResponse,
  passkeysResponse,
  registrationVerifyBody,
  renameBody,
  requestOptionsResponse,
  stepUpBody,
} from './schemas.ts';

const STEP_UP_ERRORS = ['REAUTH_FAILED', 'FORBIDDEN', 'RATE_LIMITED', 'STORE_UNAVAILABLE'] as const;
const CEREMONY_ERRORS = [
  'PASSKEY_RESPONSE_INVALID',
  'PASSKEY_CHALLENGE_INVALID',
  'PASSKEY_CHALLENGE_MISMATCH',
  'PASSKEY_ORIGIN_MISMATCH',
] as const;

export const registrationOptionsRoute = defineRoute({
  method: 'post',
  path: '/registration/options',
  summary: "Options to register a passkey for the caller's account, after the step-up (the password, and a TOTP code when enrolled)",
  noStore: true,
  request: { body: jsonBody(stepUpBody) },
  errors: [...STEP_UP_ERRORS],
  responses: {
    200: {
      description: 'the options for navigator.credentials.create(); the challenge lives 5 minutes',
      ...jsonContent(creationOptionsResponse),
    },
  },
});

export const registrationVerifyRoute = defineRoute({
  method: 'post',
  path: '/registration/verify',
  summary: 'Register the passkey the browser created from those options',
  request: { body: jsonBody(registrationVerifyBody) },
  errors: [...CEREMONY_ERRORS, 'PASSKEY_EXISTS', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'registered', ...jsonContent(passkeyResponse) } },
});

export const listRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: "The caller's passkeys",
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'oldest first', ...jsonContent(passkeysResponse) } },
});

export const renameRoute = defineRoute({
  method: 'patch',
  path: '/{passkeyId}',
  summary: "Rename one of the caller's passkeys",
  request: { params: passkeyParams, body: jsonBody(renameBody) },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'renamed', ...jsonContent(passkeyResponse) } },
});

export const removeRoute = defineRoute({
  method: 'delete',
  path: '/{passkeyId}',
  summary: "Remove one of the caller's passkeys, after the step-up",
  request: { params: passkeyParams, body: jsonBody(stepUpBody) },
  errors: [...STEP_UP_ERRORS, 'NOT_FOUND'],
  responses: { 204: { description: 'removed' } },
});

export const authenticationOptionsRoute = defineRoute({
  method: 'post',
  path: '/authentication/options',
  summary: 'Options to sign in to an organisation with a passkey (discoverable: no account is named, none is listed)',
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(authenticationOptionsBody) },
  errors: ['RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: {
    200: {
      description: 'the options for navigator.credentials.get(); the challenge lives 5 minutes',
      ...jsonContent(requestOptionsResponse),
    },
  },
});

export const authenticationVerifyRoute = defineRoute({
  method: 'post',
  path: '/authentication/verify',
  summary: 'Sign in to the organisation with the passkey assertion the browser made from those options',
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(authenticationVerifyBody) },
  errors: [
    ...CEREMONY_ERRORS,
    'PASSKEY_NOT_ACCEPTED',
    'PASSKEY_COUNTER_REGRESSED',
    'TENANT_SUSPENDED',
    'INVALID_CREDENTIALS',
    'RATE_LIMITED',
    'NOT_CONFIGURED',
    'STORE_UNAVAILABLE',
  ],
  responses: { 200: { description: 'signed in: the body of POST /auth/login', ...jsonContent(sessionTokensSchema) } },
});

export const enrolmentOptionsRoute = defineRoute({
  method: 'post',
  path: '/enrolment/options',
  summary:
    'Options to register a passkey with the enrolment token of a sign-in to an organisation that requires MFA (the token stands in for the step-up)',
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(enrolmentOptionsBody) },
  errors: ['ENROLMENT_INVALID', 'SIGN_IN_METHOD_NOT_ALLOWED', 'STORE_UNAVAILABLE'],
  responses: {
    200: {
      description: 'the options for navigator.credentials.create(); the challenge lives 5 minutes',
      ...jsonContent(creationOptionsResponse),
    },
  },
});

export const enrolmentVerifyRoute = defineRoute({
  method: 'post',
  path: '/enrolment/verify',
  summary:
    "Register the passkey the browser created from the enrolment options; this spends the enrolment token and opens the sign-in's session",
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(enrolmentVerifyBody) },
  errors: [
    'ENROLMENT_INVALID',
    ...CEREMONY_ERRORS,
    'PASSKEY_EXISTS',
    'SIGN_IN_METHOD_NOT_ALLOWED',
    'TENANT_SUSPENDED',
    'STORE_UNAVAILABLE',
  ],
  responses: { 200: { description: 'registered and signed in: the body of POST /auth/login', ...jsonContent(sessionTokensSchema) } },
});

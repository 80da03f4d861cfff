// Route definitions (OpenAPI) of the auth function: sign-in, refresh and logout under /auth, the JWKS under /.well-known.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { jwksSchema, refreshBody, sessionTokensSchema, signInBody, signInResponseSchema } from './schemas.ts';

export const signInRoute = defineRoute({
  method: 'post',
  path: '/login',
  summary: 'Sign in with email and password within an organisation',
  noStore: true,
  request: { body: jsonBody(signInBody) },
  errors: [
    'INVALID_CREDENTIALS',
    'TENANT_SUSPENDED',
    'SIGN_IN_METHOD_NOT_ALLOWED',
    'MFA_ENROLMENT_REQUIRED',
    'RATE_LIMITED',
    'NOT_CONFIGURED',
    'STORE_UNAVAILABLE',
  ],
  responses: {
    200: {
      description:
        'signed in; or (status mfa-required) a challenge to answer for a user with MFA; or (status mfa-enrolment-required) an enrolment token, where the organisation requires MFA and the user has none',
      ...jsonContent(signInResponseSchema),
    },
  },
});

export const refreshRoute = defineRoute({
  method: 'post',
  path: '/refresh',
  summary: 'Exchange a refresh token for a new access token and the next refresh token',
  noStore: true,
  request: { body: jsonBody(refreshBody) },
  errors: ['REFRESH_INVALID', 'TENANT_SUSPENDED', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: {
    200: { description: 'refreshed, or (a retry within the grace) the same next refresh token again', ...jsonContent(sessionTokensSchema) },
  },
});

export const logoutRoute = defineRoute({
  method: 'post',
  path: '/logout',
  summary: "Revoke the caller's session",
  auth: 'bearer',
  errors: ['STORE_UNAVAILABLE'],
  responses: { 204: { description: 'revoked' } },
});

export const jwksRoute = defineRoute({
  method: 'get',
  path: '/jwks.json',
  summary: "The public keys of sign-in's own access tokens",
  // The stored keys are read from PostgreSQL at most once per reload interval; an isolate that never could answers 503.
  errors: ['STORE_UNAVAILABLE'],
  responses: {
    200: {
      description:
        'a JWK set: the stored current, next and previous keys, or the configured ones (empty when tokens are HS256); cacheable for 5 minutes',
      ...jsonContent(jwksSchema),
    },
  },
});

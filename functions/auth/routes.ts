// Route definitions (OpenAPI) of the auth function: sign-in, refresh and logout under /auth, the JWKS under /.well-known.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { jwksSchema, refreshBody, sessionTokensSchema, signInBody, signInResponseSchema } from './schemas.ts';

export const signInRoute = defineRoute({
  method: 'post',
  path: '/login',
  summary: 'Sign in with email and password within an organisation',
  noStore: true,
  request: { body: jsonBody(signInBody) },
  responses: {
    200: {
      description: 'signed in, or (status mfa-required) a challenge to answer for a user with MFA',
      ...jsonContent(signInResponseSchema),
    },
    ...errorResponses(400, 401, 429, 503),
  },
});

export const refreshRoute = defineRoute({
  method: 'post',
  path: '/refresh',
  summary: 'Exchange a refresh token for a new access token and the next refresh token',
  noStore: true,
  request: { body: jsonBody(refreshBody) },
  responses: { 200: { description: 'refreshed', ...jsonContent(sessionTokensSchema) }, ...errorResponses(400, 401, 503) },
});

export const logoutRoute = defineRoute({
  method: 'post',
  path: '/logout',
  summary: "Revoke the caller's session",
  auth: 'bearer',
  responses: { 204: { description: 'revoked' }, ...errorResponses(401, 503) },
});

export const jwksRoute = defineRoute({
  method: 'get',
  path: '/jwks.json',
  summary: "The public keys of sign-in's own access tokens",
  responses: { 200: { description: 'a JWK set (empty when tokens are HS256, in dev and test)', ...jsonContent(jwksSchema) } },
});

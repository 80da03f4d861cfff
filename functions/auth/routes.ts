// Route definitions (OpenAPI) of the auth function.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { noStore } from '../../lib/http/no-store.ts';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { jwksSchema, refreshBody, sessionTokensSchema, signInBody, signInResponseSchema } from './schemas.ts';

export const signInRoute = createRoute({
  method: 'post',
  path: '/auth/login',
  summary: 'Sign in with email and password within an organisation',
  middleware: [noStore] as const,
  request: { body: jsonBody(signInBody) },
  responses: {
    200: {
      description: 'signed in, or (status mfa-required) a challenge to answer for a user with MFA',
      ...jsonContent(signInResponseSchema),
    },
    ...errorResponses(400, 401, 429, 503),
  },
});

export const refreshRoute = createRoute({
  method: 'post',
  path: '/auth/refresh',
  summary: 'Exchange a refresh token for a new access token and the next refresh token',
  middleware: [noStore] as const,
  request: { body: jsonBody(refreshBody) },
  responses: { 200: { description: 'refreshed', ...jsonContent(sessionTokensSchema) }, ...errorResponses(400, 401, 503) },
});

export const logoutRoute = createRoute({
  method: 'post',
  path: '/auth/logout',
  summary: "Revoke the caller's session",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 204: { description: 'revoked' }, ...errorResponses(401, 503) },
});

export const jwksRoute = createRoute({
  method: 'get',
  path: '/.well-known/jwks.json',
  summary: "The public keys of sign-in's own access tokens",
  responses: { 200: { description: 'a JWK set (empty when tokens are HS256, in dev and test)', ...jsonContent(jwksSchema) } },
});

// Route definitions (OpenAPI) of the MFA function: enrol a TOTP factor, confirm it, answer a sign-in challenge.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';
import { confirmBody, enrolResponse, verifyBody } from './schemas.ts';
import { noStore } from '../../lib/http/no-store.ts';

export const enrolRoute = createRoute({
  method: 'post',
  path: '/auth/mfa/enrol',
  summary: "Start (or restart) the caller's TOTP enrolment: a fresh secret, pending until a first code confirms it",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 201: { description: 'the secret, shown once', ...jsonContent(enrolResponse) }, ...errorResponses(401, 403, 409, 503) },
});

export const confirmRoute = createRoute({
  method: 'post',
  path: '/auth/mfa/enrol/confirm',
  summary: 'Confirm the pending TOTP factor with a first code; from then on sign-in asks for a code',
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { body: jsonBody(confirmBody) },
  responses: { 204: { description: 'confirmed' }, ...errorResponses(400, 401, 404, 409, 503) },
});

export const verifyRoute = createRoute({
  method: 'post',
  path: '/auth/mfa/verify',
  summary: "Answer a sign-in's MFA challenge with the current TOTP code",
  middleware: [noStore] as const,
  request: { body: jsonBody(verifyBody) },
  responses: { 200: { description: 'signed in', ...jsonContent(sessionTokensSchema) }, ...errorResponses(400, 401, 429, 503) },
});

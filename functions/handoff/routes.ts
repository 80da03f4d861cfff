// Route definitions (OpenAPI) of the SSO handoff function.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { noStore } from '../../lib/http/no-store.ts';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { exchangeHandoffBody, exchangedHandoffResponse, issueHandoffBody, issuedHandoffResponse } from './schemas.ts';

export const issueHandoffRoute = createRoute({
  method: 'post',
  path: '/auth/handoff',
  summary: "A one-time code that hands the caller's session to another configured app",
  security: bearerSecurity,
  middleware: [noStore, requireAuth] as const,
  request: { body: jsonBody(issueHandoffBody) },
  responses: { 201: { description: 'issued', ...jsonContent(issuedHandoffResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const exchangeHandoffRoute = createRoute({
  method: 'post',
  path: '/auth/handoff/exchange',
  summary: 'The target app exchanges a handoff code, once, for an access token of the same session',
  middleware: [noStore] as const,
  request: { body: jsonBody(exchangeHandoffBody) },
  responses: { 200: { description: 'exchanged', ...jsonContent(exchangedHandoffResponse) }, ...errorResponses(400, 401, 503) },
});

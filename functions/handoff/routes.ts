// Route definitions (OpenAPI) of the SSO handoff function, under /auth/handoff.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { exchangeHandoffBody, exchangedHandoffResponse, issueHandoffBody, issuedHandoffResponse } from './schemas.ts';

export const issueHandoffRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: "A one-time code that hands the caller's session to another configured app",
  request: { body: jsonBody(issueHandoffBody) },
  responses: { 201: { description: 'issued', ...jsonContent(issuedHandoffResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const exchangeHandoffRoute = defineRoute({
  method: 'post',
  path: '/exchange',
  summary: 'The target app exchanges a handoff code, once, for an access token of the same session',
  auth: 'none',
  request: { body: jsonBody(exchangeHandoffBody) },
  responses: { 200: { description: 'exchanged', ...jsonContent(exchangedHandoffResponse) }, ...errorResponses(400, 401, 503) },
});

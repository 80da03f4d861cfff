// Route definitions (OpenAPI) of the SSO handoff function, under /auth/handoff.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { exchangeHandoffBody, exchangedHandoffResponse, issueHandoffBody, issuedHandoffResponse } from './schemas.ts';

export const issueHandoffRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: "A one-time code that hands the caller's session to another configured app",
  request: { body: jsonBody(issueHandoffBody) },
  errors: ['FORBIDDEN', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'issued', ...jsonContent(issuedHandoffResponse) } },
});

export const exchangeHandoffRoute = defineRoute({
  method: 'post',
  path: '/exchange',
  summary: 'The target app exchanges a handoff code, once, for an access token of the same session',
  description:
    'An app configured with a client secret (SSO_HANDOFF_AUDIENCES `<app>:<sha256 hex>`) sends `Authorization: Basic base64(<app>:<secret>)`; a missing or wrong one is the same 401 HANDOFF_INVALID, and spends nothing. An app that does not present one is limited per (audience, client address): 600 exchanges per 15 minutes, then 429 RATE_LIMITED with the code untouched.',
  auth: 'none',
  request: { body: jsonBody(exchangeHandoffBody) },
  errors: ['HANDOFF_INVALID', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'exchanged', ...jsonContent(exchangedHandoffResponse) } },
});

// Route definitions (OpenAPI) of the password-reset function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import * as z from 'zod';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { confirmResetBody, requestResetBody, requestedResetResponse } from './schemas.ts';

export const requestResetRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: 'Ask for a reset link; the same answer whether or not the email belongs to a member',
  request: { body: jsonBody(requestResetBody) },
  errors: ['RATE_LIMITED', 'NOT_CONFIGURED'],
  responses: { 202: { description: 'accepted', ...jsonContent(requestedResetResponse) } },
});

export const confirmResetRoute = defineRoute({
  method: 'post',
  path: '/confirm',
  summary: 'Set a new password with a reset token; every session of the user ends',
  request: { body: jsonBody(confirmResetBody) },
  errors: ['PASSWORD_BREACHED', 'RESET_INVALID', 'RATE_LIMITED', 'BREACH_CHECK_UNAVAILABLE', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'password set, sessions revoked' } },
});

export const resetPageRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: 'The page a reset link opens (the token stays in the URL fragment)',
  errors: [],
  responses: { 200: { description: 'the page', content: { 'text/html': { schema: z.string() } } } },
});

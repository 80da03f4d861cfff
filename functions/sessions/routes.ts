// Route definitions (OpenAPI) of the sessions function.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { contextResponse, memberParams, membershipsResponse, sessionsRevokedResponse, setContextBody } from './schemas.ts';

// Each route names requireAuth itself, not `use('/auth/*')`: every function is mounted at '/', and that would also
// guard /auth/login.

export const revokeAllRoute = createRoute({
  method: 'post',
  path: '/auth/sessions/revoke-all',
  summary: 'Sign out everywhere: revoke every session of the caller, the presenting one included',
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 200: { description: 'revoked', ...jsonContent(sessionsRevokedResponse) }, ...errorResponses(401, 503) },
});

export const revokeMemberRoute = createRoute({
  method: 'post',
  path: '/orgs/{orgId}/members/{userId}/sessions/revoke',
  summary: "Revoke a member's sessions opened in this organisation (OrganizationAdmin)",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { params: memberParams },
  responses: { 200: { description: 'revoked', ...jsonContent(sessionsRevokedResponse) }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const setContextRoute = createRoute({
  method: 'put',
  path: '/auth/context',
  summary: "Choose the session's active organisation and outlet (the role is checked in PostgreSQL)",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { body: jsonBody(setContextBody) },
  responses: { 200: { description: 'stored', ...jsonContent(contextResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const readContextRoute = createRoute({
  method: 'get',
  path: '/auth/context',
  summary: "The session's active context (one Redis round trip)",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 200: { description: 'the context', ...jsonContent(contextResponse) }, ...errorResponses(401, 404, 503) },
});

export const resetContextRoute = createRoute({
  method: 'delete',
  path: '/auth/context',
  summary: "Reset the session's active context",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 204: { description: 'reset' }, ...errorResponses(401, 503) },
});

export const membershipsRoute = createRoute({
  method: 'get',
  path: '/auth/memberships',
  summary: "The caller's organisations and the outlets each lets them choose as the active context",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 200: { description: 'the memberships', ...jsonContent(membershipsResponse) }, ...errorResponses(401, 503) },
});

// Route definitions (OpenAPI) of the sessions function: the caller's own under /auth, an admin's under /orgs/{orgId}/members.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import {
  contextResponse,
  memberParams,
  setContextResponse,
  memberSessionsResponse,
  membershipsResponse,
  ownSessionsResponse,
  sessionParams,
  sessionsRevokedResponse,
  setContextBody,
} from './schemas.ts';

export const listSessionsRoute = defineRoute({
  method: 'get',
  path: '/sessions',
  summary: "The caller's live sessions, newest first (the presenting one marked current)",
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the sessions', ...jsonContent(ownSessionsResponse) } },
});

export const endSessionRoute = defineRoute({
  method: 'delete',
  path: '/sessions/{sessionId}',
  summary: "End one of the caller's own sessions (another user's or an unknown id is 404)",
  request: { params: sessionParams },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'ended' } },
});

export const revokeAllRoute = defineRoute({
  method: 'post',
  path: '/sessions/revoke-all',
  summary: 'Sign out everywhere: revoke every session of the caller, the presenting one included',
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'revoked', ...jsonContent(sessionsRevokedResponse) } },
});

export const memberSessionsRoute = defineRoute({
  method: 'get',
  path: '/{userId}/sessions',
  scope: 'sessions:read',
  summary: "A member's live sessions bound to this organisation (OrganizationAdmin)",
  request: { params: memberParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the sessions', ...jsonContent(memberSessionsResponse) } },
});

export const revokeMemberRoute = defineRoute({
  method: 'post',
  path: '/{userId}/sessions/revoke',
  scope: 'sessions:write',
  summary: "Revoke a member's sessions bound to this organisation (OrganizationAdmin)",
  request: { params: memberParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'revoked', ...jsonContent(sessionsRevokedResponse) } },
});

export const setContextRoute = defineRoute({
  method: 'put',
  path: '/context',
  summary:
    "Choose the session's active organisation and outlet (the role is checked in PostgreSQL); another organisation than the session's switches it there, with new tokens",
  request: { body: jsonBody(setContextBody) },
  // A switch answers tokens; the same route's other answers are not worth a cache either.
  noStore: true,
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'SIGN_IN_REQUIRED', 'TOKEN_REVOKED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'stored; after a switch, with the new tokens', ...jsonContent(setContextResponse) } },
});

export const readContextRoute = defineRoute({
  method: 'get',
  path: '/context',
  summary: "The session's active context (one Redis round trip)",
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the context', ...jsonContent(contextResponse) } },
});

export const resetContextRoute = defineRoute({
  method: 'delete',
  path: '/context',
  summary: "Reset the session's active context",
  errors: ['STORE_UNAVAILABLE'],
  responses: { 204: { description: 'reset' } },
});

export const membershipsRoute = defineRoute({
  method: 'get',
  path: '/memberships',
  summary: "The caller's organisations and the outlets each lets them choose as the active context",
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the memberships', ...jsonContent(membershipsResponse) } },
});

// Route definitions (OpenAPI) of the member function.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { changeRoleBody, listMembersQuery, memberListResponse, memberParams, memberResponse, orgParams } from './schemas.ts';

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

// Each route names requireAuth itself, as functions/sessions does: none relies on another function's `use('/orgs/*')`.

export const listMembersRoute = createRoute({
  method: 'get',
  path: '/orgs/{orgId}/members',
  summary: "The organisation's role assignments, in the order they were granted, one page at a time (OrganizationAdmin)",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { params: orgParams, query: listMembersQuery },
  responses: { 200: { description: 'members', ...json(memberListResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const changeMemberRoleRoute = createRoute({
  method: 'patch',
  path: '/orgs/{orgId}/members/{userId}',
  summary: 'Change the role a member holds at one scope (OrganizationAdmin); the last organisation-wide admin stays one',
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { params: memberParams, body: { ...json(changeRoleBody), required: true } },
  responses: {
    200: { description: 'the member, with the role now held', ...json(memberResponse) },
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

export const removeMemberRoute = createRoute({
  method: 'delete',
  path: '/orgs/{orgId}/members/{userId}',
  summary: 'Remove a member from the organisation and end their sessions opened in it (OrganizationAdmin)',
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  request: { params: memberParams },
  responses: { 204: { description: 'removed' }, ...errorResponses(400, 401, 403, 404, 409, 503) },
});

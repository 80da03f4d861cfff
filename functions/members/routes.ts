// Route definitions (OpenAPI) of the member function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import { changeRoleBody, listMembersQuery, memberListResponse, memberParams, memberResponse } from './schemas.ts';

export const listMembersRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'members:read',
  summary: "The organisation's role assignments, in the order they were granted, one page at a time (OrganizationAdmin)",
  request: { params: orgParams, query: listMembersQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'members', ...jsonContent(memberListResponse) } },
});

export const changeMemberRoleRoute = defineRoute({
  method: 'patch',
  path: '/{userId}',
  scope: 'members:write',
  summary: 'Change the role a member holds at one scope (OrganizationAdmin); the last organisation-wide admin stays one',
  request: { params: memberParams, body: jsonBody(changeRoleBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'LAST_ADMIN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the member, with the role now held', ...jsonContent(memberResponse) } },
});

export const removeMemberRoute = defineRoute({
  method: 'delete',
  path: '/{userId}',
  scope: 'members:write',
  summary: 'Remove a member from the organisation and end their sessions opened in it (OrganizationAdmin)',
  request: { params: memberParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'LAST_ADMIN', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'removed' } },
});

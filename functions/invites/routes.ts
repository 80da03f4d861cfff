// Route definitions (OpenAPI) of the invitation function.
import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  acceptInviteBody,
  acceptedInviteResponse,
  createInviteBody,
  createdInviteResponse,
  inviteHistoryQuery,
  inviteHistoryResponse,
  inviteListResponse,
  inviteParams,
  listInvitesQuery,
} from './schemas.ts';

export const createInviteRoute = createRoute({
  method: 'post',
  path: '/orgs/{orgId}/invites',
  summary: 'Invite someone to the organisation (OrganizationAdmin)',
  security: bearerSecurity,
  request: { params: orgParams, body: jsonBody(createInviteBody) },
  responses: { 201: { description: 'created', ...jsonContent(createdInviteResponse) }, ...errorResponses(400, 401, 403, 409, 429, 503) },
});

export const listInvitesRoute = createRoute({
  method: 'get',
  path: '/orgs/{orgId}/invites',
  summary: 'Active invitations, soonest expiry first, one page at a time (OrganizationAdmin)',
  security: bearerSecurity,
  request: { params: orgParams, query: listInvitesQuery },
  responses: { 200: { description: 'active invites', ...jsonContent(inviteListResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const inviteHistoryRoute = createRoute({
  method: 'get',
  path: '/orgs/{orgId}/invites/history',
  summary: "The organisation's invite audit events, newest first, one page at a time (OrganizationAdmin)",
  security: bearerSecurity,
  request: { params: orgParams, query: inviteHistoryQuery },
  responses: { 200: { description: 'invite events', ...jsonContent(inviteHistoryResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const cancelInviteRoute = createRoute({
  method: 'delete',
  path: '/orgs/{orgId}/invites/{inviteId}',
  summary: 'Cancel an active invitation (OrganizationAdmin)',
  security: bearerSecurity,
  request: { params: inviteParams },
  responses: { 204: { description: 'cancelled' }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const acceptInviteRoute = createRoute({
  method: 'post',
  path: '/invites/accept',
  summary: "Accept an invitation addressed to the caller's verified email",
  security: bearerSecurity,
  request: { body: jsonBody(acceptInviteBody) },
  responses: {
    200: { description: 'accepted', ...jsonContent(acceptedInviteResponse) },
    ...errorResponses(400, 401, 403, 409, 410, 429, 503),
  },
});

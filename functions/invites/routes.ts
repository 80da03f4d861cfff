// Route definitions (OpenAPI) of the invitation function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { errorResponses } from '../../lib/http/openapi-app.ts';
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

export const createInviteRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: 'Invite someone to the organisation (OrganizationAdmin)',
  request: { params: orgParams, body: jsonBody(createInviteBody) },
  responses: { 201: { description: 'created', ...jsonContent(createdInviteResponse) }, ...errorResponses(400, 401, 403, 409, 429, 503) },
});

export const listInvitesRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: 'Active invitations, soonest expiry first, one page at a time (OrganizationAdmin)',
  request: { params: orgParams, query: listInvitesQuery },
  responses: { 200: { description: 'active invites', ...jsonContent(inviteListResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const inviteHistoryRoute = defineRoute({
  method: 'get',
  path: '/history',
  summary: "The organisation's invite audit events, newest first, one page at a time (OrganizationAdmin)",
  request: { params: orgParams, query: inviteHistoryQuery },
  responses: { 200: { description: 'invite events', ...jsonContent(inviteHistoryResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const cancelInviteRoute = defineRoute({
  method: 'delete',
  path: '/{inviteId}',
  summary: 'Cancel an active invitation (OrganizationAdmin)',
  request: { params: inviteParams },
  responses: { 204: { description: 'cancelled' }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const acceptInviteRoute = defineRoute({
  method: 'post',
  path: '/accept',
  summary: "Accept an invitation addressed to the caller's verified email",
  request: { body: jsonBody(acceptInviteBody) },
  responses: {
    200: { description: 'accepted', ...jsonContent(acceptedInviteResponse) },
    ...errorResponses(400, 401, 403, 409, 410, 429, 503),
  },
});

// Route definitions (OpenAPI) of the invitation function.
import * as z from 'zod';
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';
import {
  acceptInviteBody,
  acceptedInviteResponse,
  createInviteBody,
  createInviteResponse,
  emailedInviteResponse,
  inviteHistoryQuery,
  inviteHistoryResponse,
  inviteListResponse,
  inviteParams,
  listInvitesQuery,
  registerInviteBody,
} from './schemas.ts';

export const createInviteRoute = defineRoute({
  method: 'post',
  path: '/',
  scope: 'invites:write',
  summary: 'Invite someone to the organisation (OrganizationAdmin)',
  request: { params: orgParams, body: jsonBody(createInviteBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'INVITE_LIMIT_REACHED', 'RATE_LIMITED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: {
    201: {
      description: "created: { invite, token } for delivery 'none', { invite, delivery } for 'email'",
      ...jsonContent(createInviteResponse),
    },
  },
});

export const listInvitesRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'invites:read',
  summary: 'Active invitations, soonest expiry first, one page at a time (OrganizationAdmin)',
  request: { params: orgParams, query: listInvitesQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'active invites', ...jsonContent(inviteListResponse) } },
});

export const inviteHistoryRoute = defineRoute({
  method: 'get',
  path: '/history',
  scope: 'invites:read',
  summary: "The organisation's invite audit events, newest first, one page at a time (OrganizationAdmin)",
  request: { params: orgParams, query: inviteHistoryQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'invite events', ...jsonContent(inviteHistoryResponse) } },
});

export const cancelInviteRoute = defineRoute({
  method: 'delete',
  path: '/{inviteId}',
  scope: 'invites:write',
  summary: 'Cancel an active invitation (OrganizationAdmin)',
  request: { params: inviteParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'cancelled' } },
});

export const resendInviteRoute = defineRoute({
  method: 'post',
  path: '/{inviteId}/resend',
  scope: 'invites:write',
  summary: 'Email an active invitation again with a new token and a restarted expiry (OrganizationAdmin)',
  request: { params: inviteParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'RATE_LIMITED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'resent: the old token is refused from now on', ...jsonContent(emailedInviteResponse) } },
});

export const acceptInviteRoute = defineRoute({
  method: 'post',
  path: '/accept',
  summary: "Accept an invitation addressed to the caller's verified email",
  request: { body: jsonBody(acceptInviteBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'ROLE_CONFLICT', 'INVITE_INVALID', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: {
    200: { description: 'accepted', ...jsonContent(acceptedInviteResponse) },
  },
});

export const registerInviteRoute = defineRoute({
  method: 'post',
  path: '/register',
  summary: 'Create an account through an invitation delivered by email, and sign in (no bearer token)',
  auth: 'none',
  noStore: true,
  request: { body: jsonBody(registerInviteBody) },
  errors: [
    'PASSWORD_BREACHED',
    'INVITE_NOT_DELIVERED',
    'TENANT_SUSPENDED',
    'SIGN_IN_METHOD_NOT_ALLOWED',
    'MFA_ENROLMENT_REQUIRED',
    'ACCOUNT_EXISTS',
    'INVITE_INVALID',
    'RATE_LIMITED',
    'NOT_CONFIGURED',
    'BREACH_CHECK_UNAVAILABLE',
    'STORE_UNAVAILABLE',
  ],
  responses: {
    201: {
      description:
        'the account is created with the role and signed in; a repeat with the same token and password signs the same account in',
      ...jsonContent(sessionTokensSchema),
    },
  },
});

// The page an emailed link opens (functions/invites/page.ts): public, uncached, on the same path as the accept it calls.
export const invitePageRoute = defineRoute({
  method: 'get',
  path: '/accept',
  summary: 'The page an emailed invitation link opens (the token stays in the URL fragment)',
  auth: 'none',
  noStore: true,
  errors: [],
  responses: { 200: { description: 'the page', content: { 'text/html': { schema: z.string() } } } },
});

// Route definitions (OpenAPI) of the operator function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import {
  deleteBody,
  deleteResponse,
  forgetResponse,
  liftResponse,
  mfaResetResponse,
  stateResponse,
  suspendBody,
  tenantParams,
  tenantRateLimitResponse,
  userParams,
  userRateLimitQuery,
  userRateLimitResponse,
} from './schemas.ts';

export const suspendTenantRoute = defineRoute({
  method: 'post',
  path: '/suspend',
  summary: 'Suspend an organisation, with a reason kept server-side (operator)',
  request: { params: tenantParams, body: jsonBody(suspendBody) },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'suspended', ...jsonContent(stateResponse) } },
});

export const reactivateTenantRoute = defineRoute({
  method: 'post',
  path: '/reactivate',
  summary: 'Make a suspended organisation active again (operator)',
  request: { params: tenantParams },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'active', ...jsonContent(stateResponse) } },
});

export const deleteTenantRoute = defineRoute({
  method: 'post',
  path: '/delete',
  summary:
    'Delete an organisation for good (operator): its sessions, invites, exports and Syrve connections end, its slug and domains are released; a repeat answers 200',
  request: { params: tenantParams, body: jsonBody(deleteBody) },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'deleted', ...jsonContent(deleteResponse) } },
});

export const forgetTenantCacheRoute = defineRoute({
  method: 'post',
  path: '/cache/invalidate',
  summary: 'Forget every cached entry of an organisation, in one Redis round trip (operator)',
  request: { params: tenantParams },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'invalidated', ...jsonContent(forgetResponse) } },
});

export const resetUserMfaRoute = defineRoute({
  method: 'delete',
  path: '/mfa',
  summary:
    "Delete a user's TOTP factor and recovery codes, for a user who lost both (operator); the next sign-in asks for the password alone",
  request: { params: userParams },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'reset', ...jsonContent(mfaResetResponse) } },
});

export const viewTenantRateLimitRoute = defineRoute({
  method: 'get',
  path: '/rate-limit',
  summary: "An organisation's tenant rate limit now: its quota, what its sliding window has counted, whether it is blocked (operator)",
  request: { params: tenantParams },
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the tenant limit', ...jsonContent(tenantRateLimitResponse) } },
});

export const liftTenantRateLimitRoute = defineRoute({
  method: 'post',
  path: '/rate-limit/lift',
  summary: "Clear an organisation's tenant rate-limit counters, audited (operator)",
  request: { params: tenantParams },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'lifted', ...jsonContent(liftResponse) } },
});

export const viewUserRateLimitRoute = defineRoute({
  method: 'get',
  path: '/rate-limit',
  summary: "A user's rate limits now, in one organisation or on the user's own routes (operator)",
  request: { params: userParams, query: userRateLimitQuery },
  errors: ['STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the user limits', ...jsonContent(userRateLimitResponse) } },
});

export const liftUserRateLimitRoute = defineRoute({
  method: 'post',
  path: '/rate-limit/lift',
  summary: "Clear a user's rate-limit counters (and one route's, if named), audited (operator)",
  request: { params: userParams, body: jsonBody(userRateLimitQuery) },
  errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'lifted', ...jsonContent(liftResponse) } },
});

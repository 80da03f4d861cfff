// Route definitions (OpenAPI) of the operator function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { forgetResponse, mfaResetResponse, stateResponse, suspendBody, tenantParams, userParams } from './schemas.ts';

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

// Route definitions (OpenAPI) of the operator function.
import { createRoute } from '@hono/zod-openapi';
import { errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { forgetResponse, stateResponse, suspendBody, tenantParams } from './schemas.ts';

const operatorSecurity = [{ operatorAuth: [] }];

export const suspendTenantRoute = createRoute({
  method: 'post',
  path: '/ops/tenants/{orgId}/suspend',
  summary: 'Suspend an organisation, with a reason kept server-side (operator)',
  security: operatorSecurity,
  request: { params: tenantParams, body: jsonBody(suspendBody) },
  responses: { 200: { description: 'suspended', ...jsonContent(stateResponse) }, ...errorResponses(400, 401, 404, 503) },
});

export const reactivateTenantRoute = createRoute({
  method: 'post',
  path: '/ops/tenants/{orgId}/reactivate',
  summary: 'Make a suspended organisation active again (operator)',
  security: operatorSecurity,
  request: { params: tenantParams },
  responses: { 200: { description: 'active', ...jsonContent(stateResponse) }, ...errorResponses(400, 401, 404, 503) },
});

export const forgetTenantCacheRoute = createRoute({
  method: 'post',
  path: '/ops/tenants/{orgId}/cache/invalidate',
  summary: 'Forget every cached entry of an organisation, in one Redis round trip (operator)',
  security: operatorSecurity,
  request: { params: tenantParams },
  responses: { 200: { description: 'invalidated', ...jsonContent(forgetResponse) }, ...errorResponses(400, 401, 404, 503) },
});

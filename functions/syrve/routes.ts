// Route definitions (OpenAPI) of the Syrve/iiko connection function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  connectionListResponse,
  connectionParams,
  connectionResponse,
  createConnectionBody,
  runtimeStateResponse,
  storesResponse,
  testResponse,
} from './schemas.ts';

export const createConnectionRoute = defineRoute({
  method: 'post',
  path: '/',
  scope: 'syrve:write',
  summary: 'Connect a Syrve/iiko RMS server (OrganizationAdmin)',
  request: { params: orgParams, body: jsonBody(createConnectionBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'CONNECTION_EXISTS', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'created', ...jsonContent(connectionResponse) } },
});

export const listConnectionsRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'syrve:read',
  summary: "The organisation's connections, oldest first (OrganizationAdmin)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'connections', ...jsonContent(connectionListResponse) } },
});

export const testConnectionRoute = defineRoute({
  method: 'post',
  path: '/{connectionId}/test',
  scope: 'syrve:write',
  summary: 'Run one cheap upstream call through the runtime session (OrganizationAdmin)',
  request: { params: connectionParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'CONNECTION_DISABLED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the result', ...jsonContent(testResponse) } },
});

export const listStoresRoute = defineRoute({
  method: 'get',
  path: '/{connectionId}/stores',
  summary: "The RMS server's stores, through the runtime session (OrganizationAdmin)",
  scope: 'syrve:read',
  request: { params: connectionParams },
  errors: [
    'FORBIDDEN',
    'TENANT_SUSPENDED',
    'NOT_FOUND',
    'CONNECTION_DISABLED',
    'CONNECTION_CHANGED',
    'UPSTREAM_FAILED',
    'UPSTREAM_BUSY',
    'STORE_UNAVAILABLE',
  ],
  responses: { 200: { description: 'stores', ...jsonContent(storesResponse) } },
});

export const runtimeStateRoute = defineRoute({
  method: 'get',
  path: '/{connectionId}/runtime',
  summary: "The connection's runtime state in Redis: session cached, refresh lock, reconnect circuit (OrganizationAdmin)",
  scope: 'syrve:read',
  request: { params: connectionParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: {
    200: { description: 'the runtime state', ...jsonContent(runtimeStateResponse) },
  },
});

export const disableConnectionRoute = defineRoute({
  method: 'delete',
  path: '/{connectionId}',
  scope: 'syrve:write',
  summary: 'Disable a connection: deletes its runtime session and logs it out upstream (OrganizationAdmin)',
  request: { params: connectionParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'disabled' } },
});

export const enableConnectionRoute = defineRoute({
  method: 'post',
  path: '/{connectionId}/enable',
  scope: 'syrve:write',
  summary: 'Enable a connection again; closes its reconnect circuit (OrganizationAdmin)',
  request: { params: connectionParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'enabled' } },
});

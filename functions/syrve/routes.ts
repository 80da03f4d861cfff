// Route definitions (OpenAPI) of the Syrve/iiko connection function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { errorResponses } from '../../lib/http/openapi-app.ts';
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
  summary: 'Connect a Syrve/iiko RMS server (OrganizationAdmin)',
  request: { params: orgParams, body: jsonBody(createConnectionBody) },
  responses: { 201: { description: 'created', ...jsonContent(connectionResponse) }, ...errorResponses(400, 401, 403, 409, 503) },
});

export const listConnectionsRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: "The organisation's connections, oldest first (OrganizationAdmin)",
  request: { params: orgParams },
  responses: { 200: { description: 'connections', ...jsonContent(connectionListResponse) }, ...errorResponses(400, 401, 403, 503) },
});

export const testConnectionRoute = defineRoute({
  method: 'post',
  path: '/{connectionId}/test',
  summary: 'Run one cheap upstream call through the runtime session (OrganizationAdmin)',
  request: { params: connectionParams },
  responses: { 200: { description: 'the result', ...jsonContent(testResponse) }, ...errorResponses(400, 401, 403, 404, 409, 503) },
});

export const listStoresRoute = defineRoute({
  method: 'get',
  path: '/{connectionId}/stores',
  summary: "The RMS server's stores, through the runtime session (OrganizationAdmin)",
  request: { params: connectionParams },
  responses: { 200: { description: 'stores', ...jsonContent(storesResponse) }, ...errorResponses(400, 401, 403, 404, 409, 502, 503) },
});

export const runtimeStateRoute = defineRoute({
  method: 'get',
  path: '/{connectionId}/runtime',
  summary: "The connection's runtime state in Redis: session cached, refresh lock, reconnect circuit (OrganizationAdmin)",
  request: { params: connectionParams },
  responses: {
    200: { description: 'the runtime state', ...jsonContent(runtimeStateResponse) },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

export const disableConnectionRoute = defineRoute({
  method: 'delete',
  path: '/{connectionId}',
  summary: 'Disable a connection: deletes its runtime session and logs it out upstream (OrganizationAdmin)',
  request: { params: connectionParams },
  responses: { 204: { description: 'disabled' }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const enableConnectionRoute = defineRoute({
  method: 'post',
  path: '/{connectionId}/enable',
  summary: 'Enable a connection again; closes its reconnect circuit (OrganizationAdmin)',
  request: { params: connectionParams },
  responses: { 204: { description: 'enabled' }, ...errorResponses(400, 401, 403, 404, 503) },
});

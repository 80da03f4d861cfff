// Route definitions (OpenAPI) of the webhook endpoint function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  createEndpointBody,
  createdEndpointResponse,
  deliveryListResponse,
  deliveryParams,
  endpointListResponse,
  endpointParams,
  endpointResponse,
  listDeliveriesQuery,
  secretResponse,
  updateEndpointBody,
} from './schemas.ts';

export const createEndpointRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: "Add an endpoint the organisation's events are sent to, signed with a secret shown once (OrganizationAdmin)",
  request: { params: orgParams, body: jsonBody(createEndpointBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'WEBHOOK_URL_FORBIDDEN', 'WEBHOOK_ENDPOINT_LIMIT', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'created; the secret is in this answer only', ...jsonContent(createdEndpointResponse) } },
});

export const listEndpointsRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'webhooks:read',
  summary: "The organisation's webhook endpoints, oldest first (OrganizationAdmin)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'endpoints', ...jsonContent(endpointListResponse) } },
});

export const readEndpointRoute = defineRoute({
  method: 'get',
  path: '/{endpointId}',
  scope: 'webhooks:read',
  summary: 'One webhook endpoint (OrganizationAdmin)',
  request: { params: endpointParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the endpoint', ...jsonContent(endpointResponse) } },
});

export const updateEndpointRoute = defineRoute({
  method: 'patch',
  path: '/{endpointId}',
  summary: "Change an endpoint's URL, events or description, or enable or disable it (OrganizationAdmin)",
  request: { params: endpointParams, body: jsonBody(updateEndpointBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'WEBHOOK_URL_FORBIDDEN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the endpoint as changed', ...jsonContent(endpointResponse) } },
});

export const deleteEndpointRoute = defineRoute({
  method: 'delete',
  path: '/{endpointId}',
  summary: 'Delete an endpoint and its deliveries (OrganizationAdmin)',
  request: { params: endpointParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'deleted' } },
});

export const rotateSecretRoute = defineRoute({
  method: 'post',
  path: '/{endpointId}/rotate-secret',
  summary: "Replace an endpoint's signing secret; the old one still signs beside it for 24 hours (OrganizationAdmin)",
  request: { params: endpointParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the new secret, in this answer only', ...jsonContent(secretResponse) } },
});

export const listDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/{endpointId}/deliveries',
  scope: 'webhooks:read',
  summary: "An endpoint's deliveries, newest first, one page at a time (OrganizationAdmin)",
  request: { params: endpointParams, query: listDeliveriesQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'deliveries', ...jsonContent(deliveryListResponse) } },
});

export const retryDeliveryRoute = defineRoute({
  method: 'post',
  path: '/{endpointId}/deliveries/{deliveryId}/retry',
  summary: 'Send a delivery again: back to pending, due now, with the same webhook-id (OrganizationAdmin)',
  request: { params: deliveryParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'WEBHOOK_DELIVERY_SUCCEEDED', 'WEBHOOK_ENDPOINT_DISABLED', 'STORE_UNAVAILABLE'],
  responses: { 202: { description: 'pending again; the delivery engine sends it' } },
});

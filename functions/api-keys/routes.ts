// Route definitions (OpenAPI) of the API key function, under /orgs/{orgId}/api-keys.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  apiKeyListResponse,
  apiKeyParams,
  apiKeyResponse,
  apiKeyWithSecretResponse,
  createApiKeyBody,
  listApiKeysQuery,
  rollApiKeyBody,
  updateApiKeyBody,
} from './schemas.ts';

export const createApiKeyRoute = defineRoute({
  method: 'post',
  path: '/',
  summary: 'Make an API key for machine clients (OrganizationAdmin); the key is in this answer only',
  request: { params: orgParams, body: jsonBody(createApiKeyBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 201: { description: 'the key, shown once', ...jsonContent(apiKeyWithSecretResponse) } },
});

export const listApiKeysRoute = defineRoute({
  method: 'get',
  path: '/',
  summary: "The organisation's API keys not revoked, in the order they were made, one page at a time (OrganizationAdmin)",
  request: { params: orgParams, query: listApiKeysQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'keys', ...jsonContent(apiKeyListResponse) } },
});

export const getApiKeyRoute = defineRoute({
  method: 'get',
  path: '/{apiKeyId}',
  summary: 'One API key (OrganizationAdmin)',
  request: { params: apiKeyParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the key', ...jsonContent(apiKeyResponse) } },
});

export const updateApiKeyRoute = defineRoute({
  method: 'patch',
  path: '/{apiKeyId}',
  summary: "Rename an API key or replace its scopes (OrganizationAdmin); new scopes hold from the key's next request",
  request: { params: apiKeyParams, body: jsonBody(updateApiKeyBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the key as it now is', ...jsonContent(apiKeyResponse) } },
});

export const revokeApiKeyRoute = defineRoute({
  method: 'delete',
  path: '/{apiKeyId}',
  summary: 'Revoke an API key (OrganizationAdmin); it is refused everywhere from then on',
  request: { params: apiKeyParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'revoked' } },
});

export const rollApiKeyRoute = defineRoute({
  method: 'post',
  path: '/{apiKeyId}/roll',
  summary:
    'A new key in place of this one (OrganizationAdmin); the old one works until the overlap ends; the new key is in this answer only',
  request: { params: apiKeyParams, body: jsonBody(rollApiKeyBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'API_KEY_ROLLED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the new key, shown once', ...jsonContent(apiKeyWithSecretResponse) } },
});

// Route definitions (OpenAPI) of the tenant function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  brandingBody,
  brandingResponse,
  domainParams,
  domainsBody,
  domainsResponse,
  memberCountQuery,
  memberCountResponse,
  resolveQuery,
  resolveResponse,
  settingsResponse,
  verifyDomainResponse,
} from './schemas.ts';

export const resolveTenantRoute = defineRoute({
  method: 'get',
  path: '/resolve',
  summary: "A tenant's public sign-in identity by slug or custom domain (anyone; 60 a minute per address)",
  request: { query: resolveQuery },
  errors: ['NOT_FOUND', 'RATE_LIMITED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the tenant', ...jsonContent(resolveResponse) } },
});

export const readSettingsRoute = defineRoute({
  method: 'get',
  path: '/settings',
  scope: 'settings:read',
  summary: "The organisation's settings: slug, state, branding, domains (OrganizationAdmin; cached 5 minutes)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'settings', ...jsonContent(settingsResponse) } },
});

export const updateBrandingRoute = defineRoute({
  method: 'patch',
  path: '/branding',
  scope: 'settings:write',
  summary: "Change the sign-in page's slug, display name, logo or colour (OrganizationAdmin)",
  request: { params: orgParams, body: jsonBody(brandingBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'SLUG_TAKEN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'changed', ...jsonContent(brandingResponse) } },
});

export const setDomainsRoute = defineRoute({
  method: 'put',
  path: '/domains',
  scope: 'settings:write',
  summary: "Replace the organisation's custom domains; a new one is pending until verified (OrganizationAdmin)",
  request: { params: orgParams, body: jsonBody(domainsBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'DOMAIN_TAKEN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the domains now, each with its status', ...jsonContent(domainsResponse) } },
});

export const listDomainsRoute = defineRoute({
  method: 'get',
  path: '/domains',
  scope: 'settings:read',
  summary: "The organisation's custom domains, verified and pending, with the TXT record each pending one waits for (OrganizationAdmin)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the domains', ...jsonContent(domainsResponse) } },
});

export const verifyDomainRoute = defineRoute({
  method: 'post',
  path: '/domains/{domain}/verify',
  scope: 'settings:write',
  summary: 'Prove a pending domain by its DNS TXT record, looked up through the configured resolver (OrganizationAdmin)',
  request: { params: domainParams },
  errors: [
    'FORBIDDEN',
    'TENANT_SUSPENDED',
    'NOT_FOUND',
    'DOMAIN_TAKEN',
    'DOMAIN_NOT_VERIFIED',
    'DNS_LOOKUP_FAILED',
    'RATE_LIMITED',
    'NOT_CONFIGURED',
    'STORE_UNAVAILABLE',
  ],
  responses: { 200: { description: 'verified: it resolves from now on', ...jsonContent(verifyDomainResponse) } },
});

export const memberCountRoute = defineRoute({
  method: 'get',
  path: '/members/count',
  scope: 'members:read',
  summary: 'How many people hold a role in the organisation, or can act at one Outlet (OrganizationAdmin; cached 1 minute)',
  request: { params: orgParams, query: memberCountQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the count', ...jsonContent(memberCountResponse) } },
});

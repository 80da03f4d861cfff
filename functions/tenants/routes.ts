// Route definitions (OpenAPI) of the tenant function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import {
  brandingBody,
  brandingResponse,
  domainsBody,
  domainsResponse,
  memberCountQuery,
  memberCountResponse,
  resolveQuery,
  resolveResponse,
  settingsResponse,
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
  summary: "The organisation's settings: slug, state, branding, domains (OrganizationAdmin; cached 5 minutes)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'settings', ...jsonContent(settingsResponse) } },
});

export const updateBrandingRoute = defineRoute({
  method: 'patch',
  path: '/branding',
  summary: "Change the sign-in page's slug, display name, logo or colour (OrganizationAdmin)",
  request: { params: orgParams, body: jsonBody(brandingBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'SLUG_TAKEN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'changed', ...jsonContent(brandingResponse) } },
});

export const setDomainsRoute = defineRoute({
  method: 'put',
  path: '/domains',
  summary: "Replace the organisation's custom domains (OrganizationAdmin)",
  request: { params: orgParams, body: jsonBody(domainsBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'DOMAIN_TAKEN', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the domains now', ...jsonContent(domainsResponse) } },
});

export const memberCountRoute = defineRoute({
  method: 'get',
  path: '/members/count',
  summary: 'How many people hold a role in the organisation, or can act at one Outlet (OrganizationAdmin; cached 1 minute)',
  request: { params: orgParams, query: memberCountQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the count', ...jsonContent(memberCountResponse) } },
});

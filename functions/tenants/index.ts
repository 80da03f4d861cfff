// The tenant function: the public resolve (before sign-in), and an OrganizationAdmin's settings, branding, domains (their
// claims and DNS verification) and member count. Suspension and cache invalidation are the operator's (functions/ops).
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { defineFunction } from '../../lib/auth/define-function.ts';
import { errors } from '../../lib/http/app-error.ts';
import { normalizeHost, normalizeSlug, tenants, type ResolveQuery } from '../../lib/runtime/tenants/index.ts';
import {
  listDomainsRoute,
  memberCountRoute,
  readSettingsRoute,
  resolveTenantRoute,
  setDomainsRoute,
  updateBrandingRoute,
  verifyDomainRoute,
} from './routes.ts';

// The resolve is public and not cached outside: the server's cache is the one with invalidation, and a browser or CDN
// copy would outlive a suspension.
export const tenantResolveFunction = defineFunction({ prefix: '/public/tenants', auth: 'none', noStore: true });
export const tenantSettingsFunction = defineFunction({ prefix: '/orgs/:orgId', auth: 'bearer' });

const noTenant = () => errors.NOT_FOUND('no tenant by that name');

tenantResolveFunction.openapi(resolveTenantRoute, async (c) => {
  const { slug, domain } = c.req.valid('query');
  // The schema checked the shape; these only normalise (lowercase, no trailing dot).
  const query: ResolveQuery =
    slug !== undefined
      ? { kind: 'slug', slug: normalizeSlug(slug)! }
      : { kind: 'domain', host: (normalizeHost(domain!) as { host: string }).host };
  const outcome = await tenants.resolve(c.get('deps'), { query, clientIp: c.get('clientIp'), correlationId: c.get('correlationId') });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw noTenant();
  }
  return c.json({ tenant: outcome.tenant }, 200);
});

tenantSettingsFunction.openapi(readSettingsRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  // The cache read goes beside the role check; nothing it found is used before the check passed.
  const authorized = authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await tenants.readSettings(deps, { organizationId, authorized, correlationId: c.get('correlationId') });
  if (!outcome.ok) throw errors.NOT_FOUND('no such organisation');
  return c.json({ settings: outcome.settings }, 200);
});

tenantSettingsFunction.openapi(memberCountRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const locationId = c.req.valid('query').locationId ?? null;
  const deps = c.get('deps');
  const authorized = authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId, locationId });
  const count = await tenants.memberCount(deps, { organizationId, locationId, authorized, correlationId: c.get('correlationId') });
  return c.json(count, 200);
});

tenantSettingsFunction.openapi(updateBrandingRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await tenants.updateBranding(deps, {
    organizationId,
    actorUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    change: c.req.valid('json'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'slug-taken') throw errors.SLUG_TAKEN();
    throw errors.NOT_FOUND('no such organisation');
  }
  return c.json({ branding: outcome.branding }, 200);
});

tenantSettingsFunction.openapi(setDomainsRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const domains = c.req.valid('json').domains.map((raw) => (normalizeHost(raw) as { host: string }).host);
  const outcome = await tenants.setDomains(deps, {
    organizationId,
    actorUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    domains,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'domain-taken') throw errors.DOMAIN_TAKEN();
    throw errors.NOT_FOUND('no such organisation');
  }
  return c.json({ domains: outcome.domains }, 200);
});

tenantSettingsFunction.openapi(listDomainsRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await tenants.listDomains(deps, { organizationId });
  if (!outcome.ok) throw errors.NOT_FOUND('no such organisation');
  return c.json({ domains: outcome.domains }, 200);
});

tenantSettingsFunction.openapi(verifyDomainRoute, async (c) => {
  const { orgId: organizationId, domain: raw } = c.req.valid('param');
  const deps = c.get('deps');
  const admin = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  // The schema checked the shape (a hostname); only this normal form reaches the resolver's query, never the raw text.
  const domain = (normalizeHost(raw) as { host: string }).host;
  const outcome = await tenants.verifyDomain(deps, {
    organizationId,
    actorUserId: admin.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    domain,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    switch (outcome.reason) {
      case 'not-configured':
        throw errors.NOT_CONFIGURED('domain verification (DOMAIN_VERIFY_DOH_URL)');
      case 'domain-taken':
        throw errors.DOMAIN_TAKEN();
      case 'record-missing':
        throw errors.DOMAIN_NOT_VERIFIED();
      case 'resolver-failed':
        throw errors.DNS_LOOKUP_FAILED();
      case 'rate-limited':
        throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
      default:
        throw errors.NOT_FOUND('no pending claim of this domain in this organisation');
    }
  }
  return c.json({ domain: outcome.domain }, 200);
});

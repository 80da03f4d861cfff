// tenants: pre-auth resolution (limiter + cache in one script), the admin's branding and domains (claimed, then
// verified through DNS), the operator's suspension and cache invalidation, and the organisation settings and member
// counts read through lib/runtime/cache (forgotten by a member's removal).
import { forgetMemberCounts } from './forget-member-counts.ts';
import { readMemberCount } from './member-count.ts';
import { readOrgSettings } from './org-settings.ts';
import { resolveTenant } from './resolve-tenant.ts';
import { setDomains } from './set-domains.ts';
import { listDomains } from './list-domains.ts';
import { verifyDomain } from './verify-domain.ts';
import { setTenantState } from './set-state.ts';
import { forgetTenantCache } from './forget-tenant.ts';
import { updateBranding } from './update-branding.ts';

export const tenants = {
  resolve: resolveTenant,
  readSettings: readOrgSettings,
  memberCount: readMemberCount,
  forgetMemberCounts,
  updateBranding,
  setDomains,
  listDomains,
  verifyDomain,
  setState: setTenantState,
  forgetCache: forgetTenantCache,
};
export { REMEMBER_MISS } from './remember.ts';
export { MAX_CLAIMABLE_DOMAIN_LENGTH } from './domain-claims.ts';
export { normalizeHost, normalizeSlug, isChoosableSlug, isCustomDomain } from './host.ts';
export { MAX_DOMAINS_PER_ORGANIZATION, MEMBER_COUNT_FORGET_MAX_OUTLETS, RESOLVE_MISSES_MAX } from './policy.ts';
export { orgSettingsSchema } from './org-settings.ts';
export { publicTenantSchema } from './public-tenant.ts';
export type { ResolveQuery } from './lookup.ts';

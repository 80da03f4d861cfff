// Tenant resolution's keys, pre-auth readable: the public answer per slug or host, the bounded "no such tenant" sets, and
// the generation that keeps a fill read before an invalidation from being stored after it.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { hashed, word } from '../id-segments.ts';
import { HEX64_MEMBER, json, sortedSet, text } from '../key-values.ts';
import { platformTagScope } from '../scopes.ts';

/** A resolved tenant's public payload is cached this long: the backstop when an invalidation's DEL is lost. */
export const RESOLVE_CACHE_TTL_SECONDS = 60;
/** An unknown or deleted slug or host is remembered this long: a sign-in page retrying a typo costs PostgreSQL once. */
export const RESOLVE_MISS_TTL_SECONDS = 10;

/**
 * The resolve generation lives this long after a bump: far longer than a fill in flight (one PostgreSQL read within its
 * deadline), so a fill that read the generation before a bump can never see it lapse back to the "0" it read.
 */
export const RESOLVE_GENERATION_TTL_SECONDS = 3_600;

/** What an anonymous caller may learn about a tenant: a whitelist, the resolve cache's value too. */
export const publicTenantSchema = z.lazy(() =>
  z.strictObject({
    organizationId: z.uuid(),
    slug: z.string().min(1).max(63),
    /** Deleted tenants are not found at all; a suspended one still resolves, so the sign-in page can say so. */
    state: z.enum(['active', 'suspended']),
    displayName: z.string().min(1).max(100),
    logoUrl: z.string().max(2048).nullable(),
    primaryColor: z
      .string()
      .regex(/^#[0-9a-f]{6}$/)
      .nullable(),
  }),
);
export type PublicTenant = z.infer<typeof publicTenantSchema>;

const RESOLVE = platformTagScope('tenant-resolve');

const resolved = (purpose: string, param: string, of: string) =>
  defineKey({
    scope: RESOLVE,
    domain: 'tenant',
    purpose,
    id: [hashed(param, `hashSegment(${of})`)],
    ttl: { seconds: RESOLVE_CACHE_TTL_SECONDS },
    value: json(publicTenantSchema),
  });

// Scores are each member's own expiry in unix milliseconds.
const misses = (purpose: string) =>
  defineKey({
    scope: RESOLVE,
    domain: 'tenant',
    purpose,
    id: [word('all')],
    ttl: { maxSeconds: RESOLVE_MISS_TTL_SECONDS },
    value: sortedSet(HEX64_MEMBER, 'keyed hashes (64 hex)', 'number'),
  });

export const tenantKeys = {
  /** `slugHash` is hashSegment(INDEX_HASH_KEY, "slug:" + slug). */
  tenantResolveSlug: resolved('resolve-slug', 'slugHash', 'slug'),
  /** `hostHash` is hashSegment(INDEX_HASH_KEY, "domain:" + host). */
  tenantResolveDomain: resolved('resolve-domain', 'hostHash', 'host'),
  tenantResolveSlugMisses: misses('resolve-slug-misses'),
  tenantResolveDomainMisses: misses('resolve-domain-misses'),
  /** Replaced by every invalidation; a fill writes only while it still holds the value its read saw. */
  tenantResolveGeneration: defineKey({
    scope: RESOLVE,
    domain: 'tenant',
    purpose: 'resolve-generation',
    id: [word('all')],
    ttl: { seconds: RESOLVE_GENERATION_TTL_SECONDS },
    value: text(/^[0-9a-f]{32}$/, 'a generation (32 random hex)'),
  }),
};

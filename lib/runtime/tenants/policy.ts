// Tenant resolution's numbers in one place: how long an answer is cached, how long and how many "no such tenant" answers.
// The cache's and the misses' TTLs are declared with their keys (lib/keys/defs/tenant.ts).
export { RESOLVE_CACHE_TTL_SECONDS, RESOLVE_MISS_TTL_SECONDS } from '../../keys/index.ts';

/**
 * At most this many remembered misses per kind (slug, domain), in one sorted set each: random hostnames evict the
 * soonest-expiring ones instead of adding keys, so the keyspace stays bounded whatever callers make up (about 100 bytes
 * a member, 100 KiB a set at most).
 */
export const RESOLVE_MISSES_MAX = 1_000;

/** Custom domains one organisation may hold: a handful of brands, with room; keeps an invalidation to one small script. */
export const MAX_DOMAINS_PER_ORGANIZATION = 20;

/**
 * A removal forgets the member count of each Outlet whose count it changed, by name, up to this many; an organisation-wide
 * member of an organisation with more Outlets forgets all its cached entries at once instead (one generation bump).
 */
export const MEMBER_COUNT_FORGET_MAX_OUTLETS = 500;

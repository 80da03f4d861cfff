// Tenant resolution's numbers in one place: how long an answer is cached, how long and how many "no such tenant" answers.
/** A resolved tenant's public payload is cached this long: the backstop when an invalidation's DEL is lost. */
export const RESOLVE_CACHE_TTL_SECONDS = 60;

/** An unknown or deleted slug or host is remembered this long: a sign-in page retrying a typo costs PostgreSQL once. */
export const RESOLVE_MISS_TTL_SECONDS = 10;

/**
 * At most this many remembered misses per kind (slug, domain), in one sorted set each: random hostnames evict the
 * soonest-expiring ones instead of adding keys, so the keyspace stays bounded whatever callers make up (about 100 bytes
 * a member, 100 KiB a set at most).
 */
export const RESOLVE_MISSES_MAX = 1_000;

/** Custom domains one organisation may hold: a handful of brands, with room; keeps an invalidation to one small script. */
export const MAX_DOMAINS_PER_ORGANIZATION = 20;

// What a Redis store does when it is full, read from `INFO memory` (CONFIG GET is an admin command that Upstash REST
// refuses; INFO is a Redis 1.0 read), and why only `noeviction` keeps what this project stores
// (docs/design/redis.md#eviction).

export const EVICTION_POLICIES = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
] as const;

/** `unknown`: the server refused INFO, or its answer names no policy (or one Redis does not have). */
export type EvictionPolicy = (typeof EVICTION_POLICIES)[number] | 'unknown';

/** The command that asks; the one INFO section the app and keys:audit send. */
export const EVICTION_INFO_COMMAND = ['INFO', 'memory'] as const;

const KNOWN = new Set<string>(EVICTION_POLICIES);

/** The `maxmemory_policy` line of an INFO answer; anything else (an error, a missing line, a new name) is `unknown`. */
export function evictionPolicyFromInfo(info: unknown): EvictionPolicy {
  if (typeof info !== 'string') return 'unknown';
  const value = /^maxmemory_policy:([a-z-]+)\r?$/m.exec(info)?.[1];
  return value !== undefined && KNOWN.has(value) ? (value as EvictionPolicy) : 'unknown';
}

export type StoreRole = 'main' | 'revocation';

/**
 * Why this store's policy loses state the app relies on, in words; undefined for `noeviction` and for `unknown` (the
 * server did not say: nothing to judge). Every key carries a TTL (lib/keys), so a `volatile-*` policy may evict any
 * key, exactly like `allkeys-*`.
 */
export function evictionProblem(role: StoreRole, policy: EvictionPolicy): string | undefined {
  if (policy === 'noeviction' || policy === 'unknown') return undefined;
  if (role === 'revocation') {
    return `${policy} may evict denylist entries when the store is full, and a revoked session's token is then accepted again until it expires; the denylist store needs noeviction (Upstash: eviction off)`;
  }
  return `${policy} may evict any key when the store is full (every key has a TTL, so volatile-* policies choose among all of them): a lock taken mid-operation, an idempotency receipt whose retry then runs twice, a live invite that then answers 410; the main store needs noeviction (Upstash: eviction off)`;
}

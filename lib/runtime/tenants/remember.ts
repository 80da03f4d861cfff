// After a miss went to PostgreSQL: the public payload cached for 60 s, or the name remembered as unknown for 10 s in a
// bounded sorted set. Best effort: a failed write is a WARN, the caller's answer stands.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { defineScript, encodeJson, redisCall, runScript } from '../../redis/index.ts';
import { RESOLVE_CACHE_TTL_SECONDS, RESOLVE_MISS_TTL_SECONDS, RESOLVE_MISSES_MAX } from './policy.ts';
import { publicTenantSchema, type PublicTenant } from './public-tenant.ts';
import type { ResolveKeys } from './resolve-keys.ts';

/**
 * KEYS[1] the miss set of the name's kind (tenantResolveSlugMisses or tenantResolveDomainMisses)
 * ARGV[1] member (the name's keyed hash), ARGV[2] its expiry (unix ms), ARGV[3] now (unix ms), ARGV[4] most members,
 * ARGV[5] the set's TTL (seconds)
 * Prunes expired members, adds this one, evicts the soonest-expiring beyond the cap, sets the TTL. Returns the evicted count.
 */
export const REMEMBER_MISS = defineScript({
  name: 'tenants.rememberMiss',
  keys: ['misses'],
  args: ['member', 'expiresAt', 'now', 'maxMembers', 'setTtl'],
  source: `
local misses_key = KEYS[1]
local member = ARGV[1]
local expires_at = tonumber(ARGV[2])
local now = ARGV[3]
local max_members = tonumber(ARGV[4])
local set_ttl = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', misses_key, '-inf', now)
redis.call('ZADD', misses_key, expires_at, member)
local over = redis.call('ZCARD', misses_key) - max_members
if over > 0 then
  redis.call('ZREMRANGEBYRANK', misses_key, 0, over - 1)
else
  over = 0
end
redis.call('EXPIRE', misses_key, set_ttl)
return over
`,
});

export async function rememberResolution(
  deps: Deps,
  keys: ResolveKeys,
  tenant: PublicTenant | undefined,
  correlationId: string,
): Promise<void> {
  const nowMs = deps.clock.now();
  try {
    if (tenant !== undefined) {
      const value = encodeJson(publicTenantSchema, tenant);
      // atMostOnce: a retry landing after an invalidation's DEL would put the old payload back for a minute.
      await redisCall('tenants.resolve.cache', () => deps.redis.atMostOnce.set(keys.entry, value, { ex: RESOLVE_CACHE_TTL_SECONDS }));
    } else {
      await runScript(deps.redis.atMostOnce, REMEMBER_MISS, {
        keys: { misses: keys.misses },
        args: {
          member: keys.member,
          expiresAt: nowMs + RESOLVE_MISS_TTL_SECONDS * 1000,
          now: nowMs,
          maxMembers: RESOLVE_MISSES_MAX,
          setTtl: RESOLVE_MISS_TTL_SECONDS,
        },
      });
    }
  } catch (error) {
    deps.logger.warn('tenant_resolve_cache_write_failed', { errorKind: errorKind(error), correlationId });
  }
}

// After a miss went to PostgreSQL: the public payload cached for 60 s, or the name remembered as unknown for 10 s in a
// bounded sorted set; either only while the resolve generation is still the one the read saw, so an answer read before
// an invalidation is never stored after it. Best effort: a failed write is a WARN, the caller's answer stands.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { defineScript, encodeJson, runScript } from '../../redis/index.ts';
import { RESOLVE_CACHE_TTL_SECONDS, RESOLVE_MISS_TTL_SECONDS, RESOLVE_MISSES_MAX } from './policy.ts';
import { publicTenantSchema, type PublicTenant } from './public-tenant.ts';
import type { ResolveKeys } from './resolve-keys.ts';

/**
 * The guard both writes share: the generation now, as the resolve script reads it ("0" when absent), must be the one
 * the fill's read saw. A bump in between (FORGET_RESOLVE) means PostgreSQL may have changed after the read.
 */
const LUA_SAME_GENERATION = `
local function same_generation(generation_key, seen)
  local current = redis.call('GET', generation_key)
  if not current then
    current = '0'
  end
  return current == seen
end
`;

/**
 * KEYS[1] the resolve generation (tenantResolveGeneration), KEYS[2] the name's entry (tenantResolveSlug or
 * tenantResolveDomain); both platform:{tenant-resolve}
 * ARGV[1] the generation the resolve script returned with the miss, ARGV[2] the payload, ARGV[3] its TTL (seconds)
 * Returns 1 when stored, 0 when an invalidation landed since the read (nothing written).
 */
export const FILL_RESOLVE = defineScript({
  name: 'tenants.fillResolve',
  keys: ['generation', 'entry'],
  args: ['seenGeneration', 'payload', 'ttl'],
  source: `
local generation_key = KEYS[1]
local entry_key = KEYS[2]
local seen_generation = ARGV[1]
local payload = ARGV[2]
local ttl = tonumber(ARGV[3])
${LUA_SAME_GENERATION}
if not same_generation(generation_key, seen_generation) then
  return 0
end
redis.call('SET', entry_key, payload, 'EX', ttl)
return 1
`,
});

/**
 * KEYS[1] the resolve generation (tenantResolveGeneration), KEYS[2] the miss set of the name's kind
 * (tenantResolveSlugMisses or tenantResolveDomainMisses); both platform:{tenant-resolve}
 * ARGV[1] the generation the resolve script returned with the miss, ARGV[2] member (the name's keyed hash), ARGV[3] its
 * expiry (unix ms), ARGV[4] now (unix ms), ARGV[5] most members, ARGV[6] the set's TTL (seconds)
 * An invalidation since the read: -1, nothing written. Else prunes expired members, adds this one, evicts the
 * soonest-expiring beyond the cap, sets the TTL, and returns the evicted count.
 */
export const REMEMBER_MISS = defineScript({
  name: 'tenants.rememberMiss',
  keys: ['generation', 'misses'],
  args: ['seenGeneration', 'member', 'expiresAt', 'now', 'maxMembers', 'setTtl'],
  source: `
local generation_key = KEYS[1]
local misses_key = KEYS[2]
local seen_generation = ARGV[1]
local member = ARGV[2]
local expires_at = tonumber(ARGV[3])
local now = ARGV[4]
local max_members = tonumber(ARGV[5])
local set_ttl = tonumber(ARGV[6])
${LUA_SAME_GENERATION}
if not same_generation(generation_key, seen_generation) then
  return -1
end
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

/** What the resolve script read with the miss: the generation ('' when malformed: nothing is written). */
export interface FillContext {
  generation: string;
  correlationId: string;
}

export async function rememberResolution(
  deps: Deps,
  keys: ResolveKeys,
  tenant: PublicTenant | undefined,
  fill: FillContext,
): Promise<void> {
  if (fill.generation === '') return;
  const nowMs = deps.clock.now();
  try {
    // atMostOnce: a retry landing late is what the generation refuses anyway, but one attempt is all a fill needs.
    if (tenant !== undefined) {
      await runScript(deps.redis.atMostOnce, FILL_RESOLVE, {
        keys: { generation: keys.generation, entry: keys.entry },
        args: { seenGeneration: fill.generation, payload: encodeJson(publicTenantSchema, tenant), ttl: RESOLVE_CACHE_TTL_SECONDS },
      });
    } else {
      await runScript(deps.redis.atMostOnce, REMEMBER_MISS, {
        keys: { generation: keys.generation, misses: keys.misses },
        args: {
          seenGeneration: fill.generation,
          member: keys.member,
          expiresAt: nowMs + RESOLVE_MISS_TTL_SECONDS * 1000,
          now: nowMs,
          maxMembers: RESOLVE_MISSES_MAX,
          setTtl: RESOLVE_MISS_TTL_SECONDS,
        },
      });
    }
  } catch (error) {
    deps.logger.warn('tenant_resolve_cache_write_failed', { errorKind: errorKind(error), correlationId: fill.correlationId });
  }
}

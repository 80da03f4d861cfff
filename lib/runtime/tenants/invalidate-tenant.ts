// After a change to a tenant commits: its resolve entries (every slug and domain it had or has) are deleted, the resolve
// generation and its org cache generation are bumped, in one pipeline (one round trip). Best effort: the TTLs are the backstop.
import { bytesToHex, randomBytes } from '../../crypto/index.ts';
import type { Deps } from '../../deps.ts';
import { RESOLVE_GENERATION_TTL_SECONDS } from '../../keys/index.ts';
import { defineScript, redisCall, scriptWire } from '../../redis/index.ts';
import { generationBump } from '../cache/index.ts';
import { resolveKeys } from './resolve-keys.ts';

/**
 * KEYS[1] the slug miss set, KEYS[2] the domain miss set, KEYS[3] the resolve generation, KEYS[4..] the resolve entries
 * to delete (all platform:{tenant-resolve})
 * ARGV[1] how many of the members that follow are slugs' (the rest are hosts'), ARGV[2] the new resolve generation
 * (32 random hex), ARGV[3] its TTL (seconds), ARGV[4..] the names' keyed hashes
 * Replaces the generation, so a fill whose PostgreSQL read came before this stores nothing (lib/runtime/tenants/remember.ts),
 * deletes the entries and takes the names out of the miss sets, so a newly claimed domain or slug resolves at once.
 * Safe to run twice (one more bump). Returns the number of entries deleted.
 */
export const FORGET_RESOLVE = defineScript({
  name: 'tenants.forgetResolve',
  keys: ['slugMisses', 'domainMisses', 'generation'],
  args: ['slugCount', 'newGeneration', 'generationTtl'],
  restKeys: 'entries',
  restArgs: 'members',
  source: `
local slug_misses_key = KEYS[1]
local domain_misses_key = KEYS[2]
local generation_key = KEYS[3]
local slug_count = tonumber(ARGV[1])
local new_generation = ARGV[2]
local generation_ttl = tonumber(ARGV[3])
redis.call('SET', generation_key, new_generation, 'EX', generation_ttl)
local deleted = 0
for i = 4, #KEYS do
  deleted = deleted + redis.call('DEL', KEYS[i])
end
for i = 4, #ARGV do
  if i - 3 <= slug_count then
    redis.call('ZREM', slug_misses_key, ARGV[i])
  else
    redis.call('ZREM', domain_misses_key, ARGV[i])
  end
end
return deleted
`,
});

export interface TenantNames {
  organizationId: string;
  /** Every slug the change touched (the old one too, when it changed). */
  slugs: readonly string[];
  /** Every host the change touched: the domains before and after. */
  domains: readonly string[];
  correlationId: string;
}

/**
 * On the retrySafe client: both steps are idempotent (a repeated bump is one more invalidation). A lost or failed reply
 * is a WARN naming the organisation and which part did not land, never a key or a name; the caller's answer stands.
 */
export async function invalidateTenant(deps: Deps, names: TenantNames): Promise<{ landed: boolean }> {
  const slugs = [...new Set(names.slugs)].map((slug) => resolveKeys(deps, { kind: 'slug', slug }));
  const hosts = [...new Set(names.domains)].map((host) => resolveKeys(deps, { kind: 'domain', host }));
  const [slugKeys, hostKeys] = await Promise.all([Promise.all(slugs), Promise.all(hosts)]);
  const bump = generationBump(deps, names.organizationId);
  let replies: unknown;
  try {
    replies = await redisCall('tenants.invalidate', () => {
      const pipeline = deps.redis.retrySafe.pipeline();
      pipeline.set(bump.key, bump.value, { ex: bump.ttlSeconds });
      // EVAL with the body: off the hot path, and a pipeline cannot fall back from a NOSCRIPT inside it.
      const { keys, args } = scriptWire(FORGET_RESOLVE, {
        keys: {
          slugMisses: deps.keys.tenantResolveSlugMisses(),
          domainMisses: deps.keys.tenantResolveDomainMisses(),
          generation: deps.keys.tenantResolveGeneration(),
          entries: [...slugKeys, ...hostKeys].map((k) => k.entry),
        },
        args: {
          slugCount: slugKeys.length,
          newGeneration: bytesToHex(randomBytes(16)),
          generationTtl: RESOLVE_GENERATION_TTL_SECONDS,
          members: [...slugKeys.map((k) => k.member), ...hostKeys.map((k) => k.member)],
        },
      });
      pipeline.eval(FORGET_RESOLVE.source, keys, args);
      return pipeline.exec({ keepErrors: true });
    });
  } catch {
    replies = undefined;
  }
  const [generation, resolve] = Array.isArray(replies) ? (replies as Array<{ error?: unknown } | undefined>) : [];
  const generationLanded = generation !== undefined && generation.error === undefined;
  const resolveLanded = resolve !== undefined && resolve.error === undefined;
  if (!generationLanded || !resolveLanded) {
    deps.logger.warn('tenant_invalidation_failed', {
      organizationId: names.organizationId,
      generation: generationLanded,
      resolve: resolveLanded,
      correlationId: names.correlationId,
    });
  }
  return { landed: generationLanded && resolveLanded };
}

// Which org cache entry a read or write is about, and its key under a given generation (registry rows orgSettingsCache,
// orgMemberCountCache): the read script completes the same key from a prefix, the generation it found and a suffix.
import type { Keyspace } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';

export type OrgCacheEntry =
  | { organizationId: string; resource: 'settings' }
  /** The plan's rate limits, read by the rate limiter's script itself (lib/runtime/ratelimit/plan.ts fills it). */
  | { organizationId: string; resource: 'rate-limits' }
  /** `locationId` null: the whole organisation's count; else one Outlet's. */
  | { organizationId: string; resource: 'member-count'; locationId: string | null };

export function entryKey(keys: Keyspace, entry: OrgCacheEntry, generation: string): string {
  if (entry.resource === 'settings') return keys.orgSettingsCache(entry.organizationId, generation);
  if (entry.resource === 'rate-limits') return keys.orgPlanLimitsCache(entry.organizationId, generation);
  return keys.orgMemberCountCache(entry.organizationId, generation, entry.locationId);
}

/**
 * The prefix and suffix around the generation, cut from a key the builder validated (generation "0"), so the key the
 * script builds is always one the registry knows; both stay inside the organisation's hash tag.
 */
export function entryShape(deps: Pick<Deps, 'keys'>, entry: OrgCacheEntry): { prefix: string; suffix: string } {
  const prefix = deps.keys.orgCacheEntryPrefix(entry.organizationId, entry.resource);
  const sample = entryKey(deps.keys, entry, '0');
  return { prefix, suffix: sample.slice(prefix.length + 1) };
}

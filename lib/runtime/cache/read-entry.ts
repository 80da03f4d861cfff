// One round trip reads an org cache entry: the organisation's generation and, in the same script, the entry keyed by it.
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { entryShape, type OrgCacheEntry } from './entries.ts';

/**
 * KEYS[1] the organisation's cache generation (orgCacheGeneration)
 * ARGV[1] the entry's key prefix in the same organisation (orgCacheEntryPrefix, ends in ':'), ARGV[2] the entry's suffix
 *         after the generation ('' for settings, '.all' or '.<locationId>' for a member count)
 * Returns {generation, value or nil}: generation "0" when none was ever bumped (or it lapsed), '' alone when the stored
 * generation is malformed (the caller then bypasses the cache rather than guess a key).
 * The entry key is derived here, not declared: it starts with the organisation's `org:{<orgId>}` tag like KEYS[1], so
 * on a cluster it hashes to the same slot and the script stays on one master.
 */
export const READ_ORG_CACHE = defineScript({
  name: 'cache.readOrgEntry',
  keys: ['generation'],
  args: ['entryPrefix', 'entrySuffix'],
  source: `
local generation_key = KEYS[1]
local entry_prefix = ARGV[1]
local entry_suffix = ARGV[2]
local generation = redis.call('GET', generation_key)
if not generation then
  generation = '0'
elseif string.len(generation) ~= 32 or not string.match(generation, '^[0-9a-f]+$') then
  return {''}
end
return {generation, redis.call('GET', entry_prefix .. generation .. entry_suffix)}
`,
});

export interface CachedEntry {
  /** The generation the entry was looked up under ("0" or 32 hex); undefined: malformed, bypass the cache. */
  generation: string | undefined;
  raw: unknown;
}

/** Read-only and idempotent, so on the retrySafe client; throws RedisUnavailableError when Redis cannot answer. */
export async function readOrgCacheEntry(deps: Deps, entry: OrgCacheEntry): Promise<CachedEntry> {
  const { prefix, suffix } = entryShape(deps, entry);
  const reply = await runScript(deps.redis.retrySafe, READ_ORG_CACHE, {
    keys: { generation: deps.keys.orgCacheGeneration(entry.organizationId) },
    args: { entryPrefix: prefix, entrySuffix: suffix },
  });
  const [generation, raw] = Array.isArray(reply) ? reply : [];
  if (typeof generation !== 'string' || !/^(?:0|[0-9a-f]{32})$/.test(generation)) return { generation: undefined, raw: undefined };
  return { generation, raw };
}

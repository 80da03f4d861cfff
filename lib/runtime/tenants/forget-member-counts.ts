// tenants.forgetMemberCounts: after a member leaves an organisation, the cached counts they were in are deleted (the
// organisation's and each Outlet's whose count changed), so the next read asks PostgreSQL instead of waiting out the TTL.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { defineScript, redisCall, runScript } from '../../redis/index.ts';
import { entryShape, generationBump } from '../cache/index.ts';
import { MEMBER_COUNT_FORGET_MAX_OUTLETS } from './policy.ts';

/**
 * KEYS[1] the organisation's cache generation (orgCacheGeneration)
 * ARGV[1] the member-count entries' key prefix (orgCacheEntryPrefix, ends in ':'), ARGV[2..] each entry's suffix after
 *         the generation ('.all' for the organisation, '.<locationId>' for an Outlet)
 * Deletes those entries under the generation readers use now ("0" when none was bumped). The entry keys are derived,
 * as READ_ORG_CACHE derives them: they start with the organisation's `org:{<orgId>}` tag like KEYS[1], one slot.
 * Returns the number deleted, or -1 for a malformed generation (no reader uses the cache then, nothing to delete).
 * Idempotent.
 */
export const FORGET_MEMBER_COUNTS = defineScript({
  name: 'tenants.forgetMemberCounts',
  keys: ['generation'],
  args: ['entryPrefix'],
  restArgs: 'suffixes',
  source: `
local generation_key = KEYS[1]
local entry_prefix = ARGV[1]
local generation = redis.call('GET', generation_key)
if not generation then
  generation = '0'
elseif string.len(generation) ~= 32 or not string.match(generation, '^[0-9a-f]+$') then
  return -1
end
local deleted = 0
for i = 2, #ARGV do
  deleted = deleted + redis.call('DEL', entry_prefix .. generation .. ARGV[i])
end
return deleted
`,
});

export interface ForgetMemberCountsInput {
  organizationId: string;
  /** The Outlets whose count changed; more than MEMBER_COUNT_FORGET_MAX_OUTLETS: every cached entry of the organisation. */
  locationIds: readonly string[];
  correlationId: string;
}

/**
 * One round trip on the retrySafe client (a repeat deletes nothing more; a repeated bump is one more invalidation).
 * Never throws: a failure is one `cache_unavailable` WARN (the cache's name, never a key or an id), and the entries then
 * end by their TTL (60 s), the staleness the count already allows for a grant.
 */
export async function forgetMemberCounts(deps: Deps, input: ForgetMemberCountsInput): Promise<{ landed: boolean }> {
  try {
    if (input.locationIds.length > MEMBER_COUNT_FORGET_MAX_OUTLETS) {
      const bump = generationBump(deps, input.organizationId);
      await redisCall('tenants.forgetMemberCounts', () => deps.redis.retrySafe.set(bump.key, bump.value, { ex: bump.ttlSeconds }));
    } else {
      const scopes = [null, ...new Set(input.locationIds)];
      const shapes = scopes.map((locationId) =>
        entryShape(deps, { organizationId: input.organizationId, resource: 'member-count', locationId }),
      );
      await runScript(deps.redis.retrySafe, FORGET_MEMBER_COUNTS, {
        keys: { generation: deps.keys.orgCacheGeneration(input.organizationId) },
        args: { entryPrefix: shapes[0]!.prefix, suffixes: shapes.map((shape) => shape.suffix) },
      });
    }
    return { landed: true };
  } catch (error) {
    deps.logger.warn('cache_unavailable', {
      cache: 'member-count',
      operation: 'forget',
      errorKind: errorKind(error),
      correlationId: input.correlationId,
    });
    return { landed: false };
  }
}

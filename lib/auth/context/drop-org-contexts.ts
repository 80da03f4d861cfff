// After a member is removed from an organisation: every active context of theirs that points at it goes, whichever
// session set it (one opened there, one opened in another organisation, an external identity provider's).
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { defineScript, runScript } from '../../redis/index.ts';

/**
 * KEYS[1] the user's index of contexts (activeContextIndex)
 * ARGV[1] the user's context key without its session id (activeContext's prefix, same hash tag as KEYS[1]),
 * ARGV[2] the organisation id, ARGV[3] now (unix seconds)
 * Prunes members past their score, then reads each listed context: one naming the organisation is deleted with its
 * member, a member whose context is gone (logout, a reset) is removed, any other is left alone. The context keys are
 * derived from ARGV[1], not declared: they start with the user's `user:{<userId>}` tag like KEYS[1], so on a cluster
 * they are in its slot. Returns how many contexts it deleted; run twice, the second deletes none.
 */
export const DROP_ORG_CONTEXTS = defineScript({
  name: 'context.dropForOrganization',
  keys: ['index'],
  args: ['contextPrefix', 'organizationId', 'now'],
  source: `
local index_key = KEYS[1]
local context_prefix = ARGV[1]
local organization_id = ARGV[2]
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', index_key, '-inf', now)
local dropped = 0
for _, session_id in ipairs(redis.call('ZRANGE', index_key, 0, -1)) do
  local context_key = context_prefix .. session_id
  local raw = redis.call('GET', context_key)
  if not raw then
    redis.call('ZREM', index_key, session_id)
  else
    local ok, context = pcall(cjson.decode, raw)
    if ok and type(context) == 'table' and context.organizationId == organization_id then
      redis.call('DEL', context_key)
      redis.call('ZREM', index_key, session_id)
      dropped = dropped + 1
    end
  end
end
return dropped
`,
});

/** A session id of the right shape, only to cut the key prefix from a key the registry built and validated. */
const SAMPLE_SESSION = '00000000-0000-0000-0000-000000000000';

/**
 * One script on the main store (retrySafe: deleting what names the organisation is the same done twice). Never throws:
 * a failure is a WARN with the user, the organisation and the correlation id, never a key or a session id; the contexts
 * then end with their TTL, and none of them grants anything (every route checks the role in PostgreSQL).
 */
export async function dropOrganizationContexts(
  deps: Deps,
  input: { userId: string; organizationId: string; correlationId: string },
): Promise<{ dropped: number } | { dropped: undefined }> {
  const sample = deps.keys.activeContext(input.userId, SAMPLE_SESSION);
  const prefix = sample.slice(0, sample.length - SAMPLE_SESSION.length);
  try {
    const reply = await runScript(deps.redis.retrySafe, DROP_ORG_CONTEXTS, {
      keys: { index: deps.keys.activeContextIndex(input.userId) },
      args: { contextPrefix: prefix, organizationId: input.organizationId, now: Math.floor(deps.clock.now() / 1000) },
    });
    return { dropped: Number(reply) };
  } catch (error) {
    deps.logger.warn('context_delete_failed', {
      userId: input.userId,
      organizationId: input.organizationId,
      correlationId: input.correlationId,
      errorKind: errorKind(error),
    });
    return { dropped: undefined };
  }
}
